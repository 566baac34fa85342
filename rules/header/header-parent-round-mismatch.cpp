// header-parent-round-mismatch: parent_hash is null exactly when round_index is not 0.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_parent_round_mismatch {

const RuleInfo kRule{
    .id = "header-parent-round-mismatch",
    .name = "HeaderParentRoundMismatch",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "parent_hash is null exactly when round_index is not 0",
    .explanation =
        "Round 0 is the genesis and has no parent (parent_hash null); every later round "
        "must name its parent. A mismatch breaks the parent_hash chain.",
    .remediation = "Set parent_hash to the parent round's content hash, or null for round 0.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->round_index || !h->parent_hash_present) return;
  const bool genesis = *h->round_index == 0;
  const bool null_parent = !h->parent_hash.has_value();
  if (genesis && !null_parent) {
    sink.Report(kRule, h->FieldLocation("parent_hash"),
                "round_index is 0 (genesis) but parent_hash is " + QuoteForMessage(*h->parent_hash, 80) +
                    "; the genesis round has parent_hash null.");
  } else if (!genesis && null_parent) {
    sink.Report(kRule, h->FieldLocation("parent_hash"),
                "parent_hash is null but round_index is " + std::to_string(*h->round_index) +
                    "; only round 0 may have no parent.");
  }
}

}  // namespace ckpt::rules::header_parent_round_mismatch
