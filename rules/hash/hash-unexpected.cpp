// hash-unexpected: Recomputed content hash differs from --expect-hash.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hash_unexpected {

const RuleInfo kRule{
    .id = "hash-unexpected",
    .name = "HashUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Recomputed content hash differs from --expect-hash",
    .explanation =
        "The artifact's recomputed content hash is not the one the caller pinned with "
        "--expect-hash.",
    .remediation = "Check that the right artifact was supplied, or update the pinned hash.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.computed_hash || !artifact.policy.expected_hash) return;
  if (*artifact.computed_hash != *artifact.policy.expected_hash) {
    Location loc = FileLocation("header.json");
    if (const Header* h = ReadableHeader(artifact)) loc = h->FieldLocation("content_hash");
    sink.Report(kRule, loc,
                "The recomputed content hash is " + *artifact.computed_hash + " but --expect-hash pinned " +
                    *artifact.policy.expected_hash + ".");
  }
}

}  // namespace ckpt::rules::hash_unexpected
