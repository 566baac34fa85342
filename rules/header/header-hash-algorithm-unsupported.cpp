// header-hash-algorithm-unsupported: hash_algorithm is not sha256.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_hash_algorithm_unsupported {

const RuleInfo kRule{
    .id = "header-hash-algorithm-unsupported",
    .name = "HeaderHashAlgorithmUnsupported",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "hash_algorithm is not sha256",
    .explanation =
        "Schema 2 declares the content hash algorithm; this reader verifies only sha256, "
        "so an artifact declaring anything else cannot be verified here.",
    .remediation = "Use hash_algorithm \"sha256\", or a reader that supports the declared algorithm.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h && h->hash_algorithm && *h->hash_algorithm != "sha256") {
    sink.Report(kRule, h->FieldLocation("hash_algorithm"),
                "hash_algorithm is " + QuoteForMessage(*h->hash_algorithm, 80) +
                    "; this reader verifies only \"sha256\", so the content hash cannot be checked.");
  }
}

}  // namespace ckpt::rules::header_hash_algorithm_unsupported
