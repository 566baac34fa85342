// header-tensor-group-undeclared: Tensor group is not listed in param_groups.
// Checked here, after the artifact is read.
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_tensor_group_undeclared {

const RuleInfo kRule{
    .id = "header-tensor-group-undeclared",
    .name = "HeaderTensorGroupUndeclared",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Tensor group is not listed in param_groups",
    .explanation = "Every manifest entry's group must be one of the header's param_groups.",
    .remediation = "Add the group to param_groups or move the tensor.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr || !h->param_groups) return;
  const std::set<std::string_view> declared(h->param_groups->begin(), h->param_groups->end());
  for (const ManifestEntry& e : *manifest) {
    if (!e.complete) continue;
    if (declared.count(e.group) == 0) {
      sink.Report(kRule, ManifestLocation(*h, e, "group"),
                  "Tensor " + QuoteForMessage(e.name) + " is in group " + QuoteForMessage(e.group) +
                      ", which param_groups does not list.");
    }
  }
}

}  // namespace ckpt::rules::header_tensor_group_undeclared
