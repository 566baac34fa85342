// residency-group-not-shared: Parameter group outside the shared set.
// Checked here, after the artifact is read.
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::residency_group_not_shared {

const RuleInfo kRule{
    .id = "residency-group-not-shared",
    .name = "ResidencyGroupNotShared",
    .code = Code::kResidencyViolation,
    .severity = Severity::kError,
    .title = "Parameter group outside the shared set",
    .explanation =
        "INV-ACTIONHEAD-LOCAL: only the shared groups (by default encoder and predictor) "
        "may leave a site. A param group or tensor group outside that set is a "
        "per-embodiment or private parameter leaking into a shared artifact.",
    .remediation =
        "Remove the group's tensors from the shared artifact; keep them local to the "
        "embodiment.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr) return;
  std::set<std::string> reported;
  if (h->param_groups) {
    for (std::size_t i = 0; i < h->param_groups->size(); ++i) {
      const std::string& group = (*h->param_groups)[i];
      if (artifact.policy.IsAllowedGroup(group) || !reported.insert(group).second) continue;
      sink.Report(kRule, h->json.At(h->param_group_offsets[i], "/param_groups/" + std::to_string(i)),
                  "param_groups declares " + QuoteForMessage(group) +
                      ", which is not a shared group; only shared groups may appear in a published artifact.");
    }
  }
  if (h->tensor_manifest) {
    for (const ManifestEntry& e : *h->tensor_manifest) {
      if (!e.complete || artifact.policy.IsAllowedGroup(e.group) || !reported.insert(e.group).second) continue;
      sink.Report(kRule, ManifestLocation(*h, e, "group"),
                  "Tensor " + QuoteForMessage(e.name) + " belongs to group " + QuoteForMessage(e.group) +
                      ", which is not a shared group.");
    }
  }
}

}  // namespace ckpt::rules::residency_group_not_shared
