// diff-change-not-allowed: A tensor changed outside the --allow-change globs.
// Checked on the comparison of two rounds (ckpt-diff).
#include <fnmatch.h>

#include "lib/diff/diff.h"
#include "rules/catalog.h"

namespace ckpt::rules::diff_change_not_allowed {

const RuleInfo kRule{
    .id = "diff-change-not-allowed",
    .name = "DiffChangeNotAllowed",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Tensor changed outside the allowed globs",
    .explanation =
        "With --allow-change, only tensors whose names match one of the globs may change, appear or "
        "disappear between the two rounds (for example a round that should only fine-tune the "
        "predictor). Any other change is unexpected and may be an injected update.",
    .remediation = "Check why the tensor changed; widen --allow-change only if the change is intended.",
    .security = true,
};

void CheckDiff(const DiffRun& run, FindingSink& sink) {
  if (run.options.allow_change.empty()) return;
  for (const TensorDiff& t : run.tensors) {
    if (t.status == TensorStatus::kUnchanged || t.status == TensorStatus::kUnreadable) continue;
    bool allowed = false;
    for (const std::string& glob : run.options.allow_change) {
      allowed |= ::fnmatch(glob.c_str(), t.name.c_str(), 0) == 0;
    }
    if (allowed) continue;
    Location loc = TensorBytesLocation(t.b ? run.b.artifact : run.a.artifact, t.name);
    sink.Report(kRule, loc,
                "Tensor " + QuoteForMessage(t.name) + " is " + std::string(TensorStatusName(t.status)) +
                    " but matches no --allow-change glob.");
  }
}

}  // namespace ckpt::rules::diff_change_not_allowed
