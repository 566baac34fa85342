// residency-policy-widened: Residency policy widened by the caller.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::residency_policy_widened {

const RuleInfo kRule{
    .id = "residency-policy-widened",
    .name = "ResidencyPolicyWidened",
    .code = Code::kResidencyViolation,
    .severity = Severity::kNote,
    .title = "Residency policy widened by the caller",
    .explanation =
        "The audit ran with extra allowed parameter groups (--allow-group), so groups "
        "that the default policy refuses were accepted. Residency is never turned off "
        "silently: this note records it.",
    .remediation = "Check that widening the shared set was intended for this artifact.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (artifact.policy.extra_allowed_groups.empty()) return;
  // Only where the widened set was needed: an artifact that uses none of the extra groups
  // was judged exactly as without --allow-group (so --fail-on note does not fail it).
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr) return;
  auto used = [&](const std::string& group) {
    if (h->param_groups &&
        std::find(h->param_groups->begin(), h->param_groups->end(), group) != h->param_groups->end()) {
      return true;
    }
    if (!h->tensor_manifest) return false;
    return std::any_of(h->tensor_manifest->begin(), h->tensor_manifest->end(),
                       [&](const ManifestEntry& e) { return e.group == group; });
  };
  std::string groups;
  for (const std::string& g : artifact.policy.extra_allowed_groups) {
    if (used(g)) groups += (groups.empty() ? "" : ", ") + QuoteForMessage(g);
  }
  if (groups.empty()) return;
  Location loc = h->param_groups ? h->FieldLocation("param_groups") : FileLocation("header.json");
  sink.Report(kRule, loc,
              "The residency policy was widened with --allow-group to also accept " + groups +
                  ", which this artifact uses; tensors in these groups were not refused.");
}

}  // namespace ckpt::rules::residency_policy_widened
