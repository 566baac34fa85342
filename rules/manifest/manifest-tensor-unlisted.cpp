// manifest-tensor-unlisted: Weight file holds a tensor the manifest does not list.
// Checked here, after the artifact is read.
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::manifest_tensor_unlisted {

const RuleInfo kRule{
    .id = "manifest-tensor-unlisted",
    .name = "ManifestTensorUnlisted",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file holds a tensor the manifest does not list",
    .explanation =
        "Every tensor in the weight files must be in tensor_manifest; an unlisted tensor "
        "is unhashed data riding along with the artifact.",
    .remediation =
        "Remove the tensor from the weights, or list it in the manifest and recompute the"
        " hash.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  NameSet listed;
  for (const ManifestEntry& e : *manifest) listed.Add(e.name);
  listed.Seal();
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      if (!listed.Contains(t.name)) {
        sink.Report(
            kRule, wf.TensorLocation(t),
            "Tensor " + QuoteForMessage(t.name) + " is stored in " + wf.name + " but not listed in tensor_manifest.");
      }
    }
  }
}

}  // namespace ckpt::rules::manifest_tensor_unlisted
