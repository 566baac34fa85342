// hash-not-verified: The content hash was not recomputed (--no-hash).
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hash_not_verified {

const RuleInfo kRule{
    .id = "hash-not-verified",
    .name = "HashNotVerified",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Content hash not verified (--no-hash)",
    .explanation =
        "With --no-hash only the structure is checked: tensor bytes are not read, so a tampered "
        "artifact whose header still declares the old content_hash is not caught. The warning "
        "keeps that visible in every report, so switching a pipeline to --no-hash cannot silently "
        "close open hash-mismatch alerts.",
    .remediation = "Run without --no-hash before trusting the artifact.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (artifact.policy.compute_hash) return;
  const Header* h = ReadableHeader(artifact);
  Location loc = h ? h->FieldLocation("content_hash") : FileLocation("header.json");
  std::string declared = (h && h->content_hash) ? " declared " + QuoteForMessage(*h->content_hash, 80) : "";
  // A remote input read for its structure only: its weight files' tails were not read either.
  const std::string remote =
      artifact.remote ? " Remotely, the weight files' last 65,557 bytes (where zipfile and miniz look for a zip "
                        "end record: a second reading) were not read either."
                      : "";
  sink.Report(kRule, loc,
              "Content hash not verified: --no-hash was given, so the tensor bytes were not hashed and the" + declared +
                  " content_hash was not checked." + remote);
}

}  // namespace ckpt::rules::hash_not_verified
