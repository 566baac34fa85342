// hash-unexpected: Input differs from --expect-hash (content hash, file SHA-256 or root digest).
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hash_unexpected {

const RuleInfo kRule{
    .id = "hash-unexpected",
    .name = "HashUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Input differs from --expect-hash",
    .explanation =
        "The value --expect-hash is compared with differs from the pin, or could not be "
        "computed: a Lensemble artifact's recomputed content hash, a single file's SHA-256, or "
        "a model folder's root digest (SHA-256 over every file's raw SHA-256 in path order, as "
        "OpenSSF Model Signing's subject digest).",
    .remediation = "Check that the right artifact was supplied, or update the pinned hash.",
    .security = true,
    .inputs = InputKinds::All(),
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.policy.expected_hash) return;
  const std::string& pinned = *artifact.policy.expected_hash;
  const Artifact::PinTarget target = artifact.PinnedValue();
  const bool lensemble = InputKinds::Lensemble().Has(artifact.kind);
  Location loc = FileLocation(lensemble ? "header.json" : "");
  if (const Header* h = ReadableHeader(artifact)) loc = h->FieldLocation("content_hash");
  if (!target.value) {
    // A Lensemble hash that was not recomputed is hash-not-verified's; any other pin that
    // could not be compared is never a silent pass.
    if (!lensemble) {
      sink.Report(kRule, loc,
                  "--expect-hash pinned " + pinned + " but the " + std::string(target.what) + " was " +
                      target.not_computed_reason + ": the pin was not compared.");
    }
    return;
  }
  if (*target.value == pinned) return;
  const std::string what = lensemble ? std::string("recomputed content hash") : std::string(target.what);
  sink.Report(kRule, loc, "The " + what + " is " + *target.value + " but --expect-hash pinned " + pinned + ".");
}

}  // namespace ckpt::rules::hash_unexpected
