// diff-rel-l2-exceeded: A tensor's relative L2 change exceeds --max-rel-l2.
// Checked on the comparison of two rounds (ckpt-diff).
#include <cstdio>

#include "lib/diff/diff.h"
#include "rules/catalog.h"

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
        "all zeros (rel_l2 infinite): this gate treats all of them as exceeding every threshold. Limits can be "
        "set per part (--max-rel-l2 PATTERN=X, or max_rel_l2 in the policy file): the most specific matching "
        "pattern decides, and a limit of 0 freezes a part, so any changed bit, added, removed or re-laid-out "
        "tensor in it is reported.",
    .remediation =
        "Inspect the round's update before accepting it; raise --max-rel-l2 only with a reason. A "
        "frozen part that moved means the round trained what it must not: reject the round.",
    .security = true,
};

namespace {

// " (limit 0.05 of 'predictor.*')" for a patterned limit; nothing for the plain one.
std::string Source(const RelL2Limit& limit) {
  if (limit.pattern == "*") return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", limit.limit);
  return std::string(" (limit ") + buf + " of " + QuoteForMessage(limit.pattern) + ")";
}

// A tensor that appeared, vanished or changed layout under a limit of 0.
std::string_view StructuralChange(TensorStatus status) {
  switch (status) {
    case TensorStatus::kAdded:
      return "was added";
    case TensorStatus::kRemoved:
      return "was removed";
    case TensorStatus::kLayoutChanged:
      return "changed dtype, shape or group";
    default:
      return "";
  }
}

}  // namespace

void CheckDiff(const DiffRun& run, FindingSink& sink) {
  if (run.options.max_rel_l2.empty()) return;
  for (const TensorDiff& t : run.tensors) {
    std::vector<std::string_view> groups;
    if (t.a) groups.emplace_back(t.a->group);
    if (t.b && (!t.a || t.b->group != t.a->group)) groups.emplace_back(t.b->group);
    const RelL2Limit* limit = RelL2LimitFor(run.options.max_rel_l2, t.name, groups);
    if (limit == nullptr) continue;
    const Location loc = TensorBytesLocation(t.b ? run.b.artifact : run.a.artifact, t.name);
    if (limit->limit == 0 && !StructuralChange(t.status).empty()) {  // frozen: no change of any kind
      sink.Report(kRule, loc,
                  "Tensor " + QuoteForMessage(t.name) + " " + std::string(StructuralChange(t.status)) +
                      ", and a limit of 0 allows no change" + Source(*limit) + ".");
      continue;
    }
    if (t.status != TensorStatus::kChanged) continue;
    if (!t.stats) {  // a dtype without statistics (quantized, integer): a change cannot be measured
      sink.Report(kRule, loc,
                  "Tensor " + QuoteForMessage(t.name) + " (" + (t.a ? std::string(t.a->dtype) : std::string()) +
                      ") changed, and its dtype has no numeric statistics: a change that cannot be measured exceeds "
                      "every threshold" +
                      Source(*limit) + ".");
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
      if (s.l2() > 0) why = "it was all zeros (rel_l2 inf: A is zero) and changed";
    } else if (*s.rel_l2() > limit->limit) {
      std::snprintf(buf, sizeof buf, "rel_l2 is %.6g, above %.6g", *s.rel_l2(), limit->limit);
      why = buf;
    }
    if (why.empty() && limit->limit == 0) {  // bits moved with no measurable value change (-0 to +0)
      std::snprintf(buf, sizeof buf, "%llu of %llu elements changed bits, and a limit of 0 allows no change",
                    static_cast<unsigned long long>(s.changed), static_cast<unsigned long long>(s.numel));
      why = buf;
    }
    if (why.empty()) continue;
    sink.Report(kRule, loc, "Tensor " + QuoteForMessage(t.name) + " changed too much: " + why + Source(*limit) + ".");
  }
}

}  // namespace ckpt::rules::diff_rel_l2_exceeded
