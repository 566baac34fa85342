// header-tensor-name-invalid: Manifest tensor name is empty or holds a control character.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_tensor_name_invalid {

const RuleInfo kRule{
    .id = "header-tensor-name-invalid",
    .name = "HeaderTensorNameInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Manifest tensor name is empty or holds a control character",
    .explanation =
        "Tensor names must be non-empty and free of Unicode control characters (category "
        "Cc), which could hide text in reports and terminals.",
    .remediation = "Rename the tensor in the model before export.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    if (!e.complete) continue;
    if (e.name.empty()) {
      sink.Report(kRule, ManifestLocation(*h, e, "name"),
                  "A tensor_manifest entry (" + e.Pointer() + ") has an empty name.");
    } else if (HasControlCharacter(e.name)) {
      sink.Report(kRule, ManifestLocation(*h, e, "name"),
                  "Tensor name " + QuoteForMessage(e.name) + " holds a control character.");
    }
  }
}

}  // namespace ckpt::rules::header_tensor_name_invalid
