// header-tensor-group-prefix: Tensor name does not start with its group.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_tensor_group_prefix {

const RuleInfo kRule{
    .id = "header-tensor-group-prefix",
    .name = "HeaderTensorGroupPrefix",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Tensor name does not start with its group",
    .explanation =
        "The first '.'-separated component of a tensor name must equal its group, so the "
        "group cannot be relabelled without renaming the tensor.",
    .remediation = "Put the tensor in the group its name starts with.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    if (!e.complete || e.name.empty()) continue;
    std::string_view first = std::string_view(e.name).substr(0, e.name.find('.'));
    if (first != e.group) {
      sink.Report(kRule, ManifestLocation(*h, e, "group"),
                  "Tensor " + QuoteForMessage(e.name) + " is in group " + QuoteForMessage(e.group) +
                      " but its name starts with " + QuoteForMessage(first) + ".");
    }
  }
}

}  // namespace ckpt::rules::header_tensor_group_prefix
