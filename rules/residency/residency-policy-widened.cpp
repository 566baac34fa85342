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
    .explanation = "The audit ran with extra allowed parameter groups (--allow-group), so groups "
                    "that the default policy refuses were accepted. Residency is never turned off "
                    "silently: this note records it.",
    .remediation = "Check that widening the shared set was intended for this artifact.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (artifact.policy.extra_allowed_groups.empty()) return;
  std::string groups;
  for (const std::string& g : artifact.policy.extra_allowed_groups) groups += (groups.empty() ? "" : ", ") + QuoteForMessage(g);
  sink.Report(kRule, FileLocation("header.json"),
              "The residency policy was widened with --allow-group to also accept " + groups +
                  "; tensors in these groups were not refused.");
}

}  // namespace ckpt::rules::residency_policy_widened
