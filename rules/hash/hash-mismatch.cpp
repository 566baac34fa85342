// hash-mismatch: Recomputed content hash differs from header.json.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hash_mismatch {

const RuleInfo kRule{
    .id = "hash-mismatch",
    .name = "HashMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Recomputed content hash differs from header.json",
    .explanation =
        "INV-CHECKPOINT-HASH: the canonical SHA-256 over tensor bytes and hashed header "
        "fields (section 5) does not equal the declared content_hash, so the tensors or "
        "hashed fields were changed after the hash was written.",
    .remediation = "Treat the artifact as tampered or corrupt; obtain it again from its producer.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->content_hash || !artifact.computed_hash) return;
  if (*artifact.computed_hash != *h->content_hash) {
    sink.Report(kRule, h->FieldLocation("content_hash"),
                "The recomputed content hash is " + *artifact.computed_hash + " but header.json declares " +
                    QuoteForMessage(*h->content_hash, 80) + ".");
  }
}

}  // namespace ckpt::rules::hash_mismatch
