// manifest-shape-mismatch: Manifest shape differs from the weight file.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::manifest_shape_mismatch {

const RuleInfo kRule{
    .id = "manifest-shape-mismatch",
    .name = "ManifestShapeMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Manifest shape differs from the weight file",
    .explanation = "The shape in tensor_manifest must equal the shape stored in the weight file.",
    .remediation = "Re-export so that header and weights agree.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    StoredRef stored = FindStored(artifact, e.name);
    if (!e.complete || stored.tensor == nullptr || !stored.tensor->complete) continue;
    if (stored.tensor->shape != e.shape) {
      sink.Report(kRule, stored.file->TensorLocation(*stored.tensor),
                  "Tensor " + QuoteForMessage(e.name) + " has shape " + ShapeText(e.shape) +
                      " in tensor_manifest but " + ShapeText(stored.tensor->shape) + " in " + stored.file->name + ".");
    }
  }
}

}  // namespace ckpt::rules::manifest_shape_mismatch
