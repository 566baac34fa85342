// diff-rel-l2-exceeded: A tensor's relative L2 change exceeds --max-rel-l2.
// Checked on the comparison of two rounds (ckpt-diff).
#include <cstdio>

#include "lib/diff/diff.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::diff_rel_l2_exceeded {

const RuleInfo kRule{
    .id = "diff-rel-l2-exceeded",
    .name = "DiffRelL2Exceeded",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Tensor changed more than --max-rel-l2 allows",
    .explanation =
        "rel_l2 = ||b - a|| / ||a|| measures how far a tensor moved in one round. A sudden jump is how "
        "a poisoned or corrupted update looks; so is any changed element involving NaN or Inf (appearing, "
        "vanishing, or NaN to a huge finite value, +Inf to -Inf), and any change of a tensor that was "
        "all zeros (rel_l2 undefined): this gate treats all of them as exceeding every threshold.",
    .remediation = "Inspect the round's update before accepting it; raise --max-rel-l2 only with a reason.",
    .security = true,
};

void CheckDiff(const DiffRun& run, FindingSink& sink) {
  if (!run.options.max_rel_l2) return;
  const double limit = *run.options.max_rel_l2;
  for (const TensorDiff& t : run.tensors) {
    if (t.status != TensorStatus::kChanged) continue;
    if (!t.stats) {  // a dtype without statistics (quantized, integer): a change cannot be measured
      Location loc = TensorManifestLocation(t.b ? run.b.artifact : run.a.artifact, t.name);
      sink.Report(kRule, loc,
                  "Tensor " + QuoteForMessage(t.name) + " (" + (t.a ? t.a->dtype : std::string()) +
                      ") changed, and its dtype has no numeric statistics: a change that cannot be measured exceeds "
                      "every threshold.");
      continue;
    }
    const DiffStats& s = *t.stats;
    std::string why;
    char buf[320];
    if (s.non_finite_pairs > 0) {
      // NaN to 3e38, +Inf to -Inf, one NaN payload to another: no finite threshold can hold them.
      std::snprintf(buf, sizeof buf,
                    "%llu changed elements involve NaN or Inf (%llu NaN and %llu Inf appeared where values were "
                    "finite), which exceeds every finite threshold",
                    static_cast<unsigned long long>(s.non_finite_pairs),
                    static_cast<unsigned long long>(s.nan_appeared), static_cast<unsigned long long>(s.inf_appeared));
      why = buf;
    } else if (!s.rel_l2()) {
      if (s.l2() > 0) why = "it was all zeros (rel_l2 undefined) and changed";
    } else if (*s.rel_l2() > limit) {
      std::snprintf(buf, sizeof buf, "rel_l2 is %.6g, above %.6g", *s.rel_l2(), limit);
      why = buf;
    }
    if (why.empty()) continue;
    Location loc = TensorManifestLocation(run.b.artifact, t.name);
    sink.Report(kRule, loc, "Tensor " + QuoteForMessage(t.name) + " changed too much: " + why + ".");
  }
}

}  // namespace ckpt::rules::diff_rel_l2_exceeded
