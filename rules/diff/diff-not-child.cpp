// diff-not-child: B is not the child of A (--require-child).
// Checked on the comparison of two rounds (ckpt-diff).
#include "lib/diff/diff.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::diff_not_child {

const RuleInfo kRule{
    .id = "diff-not-child",
    .name = "DiffNotChild",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "B is not the child of A",
    .explanation =
        "With --require-child, B's parent_hash must equal A's recomputed content hash and B's "
        "round_index must be A's + 1; otherwise B does not continue A and the comparison is not "
        "the review of one round.",
    .remediation = "Compare B with its real parent, or find out why B names another parent.",
    .security = true,
};

void CheckDiff(const DiffRun& run, FindingSink& sink) {
  if (!run.options.require_child || run.link.is_child()) return;
  std::string why;
  if (!run.link.parent_matches) {
    why = "B's parent_hash is " + (run.link.b_parent ? ShortHash(*run.link.b_parent) : std::string("null")) +
          " but A's content hash is " + (run.link.a_hash ? ShortHash(*run.link.a_hash) : std::string("unknown"));
  }
  if (!run.link.round_follows) {
    why += std::string(why.empty() ? "" : "; ") + "B's round_index is " +
           (run.link.b_round ? std::to_string(*run.link.b_round) : std::string("unknown")) + " but A's is " +
           (run.link.a_round ? std::to_string(*run.link.a_round) : std::string("unknown"));
  }
  Location loc =
      run.b.artifact.header ? run.b.artifact.header->FieldLocation("parent_hash") : FileLocation("header.json");
  loc.artifact = run.b.artifact.path;
  sink.Report(kRule, loc,
              "B (" + run.b.artifact.path + ") is not the child of A (" + run.a.artifact.path + "): " + why + ".");
}

}  // namespace ckpt::rules::diff_not_child
