// index-tensor-unmapped: Tensor in a shard is not in weight_map.
// Checked here, after the artifact is read.
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::index_tensor_unmapped {

const RuleInfo kRule{
    .id = "index-tensor-unmapped",
    .name = "IndexTensorUnmapped",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor in a shard is not in weight_map",
    .explanation = "Every tensor of every shard must be mapped in weight_map.",
    .remediation = "Re-export the shard index.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.index || !artifact.index->weight_map) return;
  NameSet mapped;
  for (const auto& m : *artifact.index->weight_map) mapped.Add(m.tensor);
  mapped.Seal();
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      if (!mapped.Contains(t.name)) {
        sink.Report(kRule, wf.TensorLocation(t),
                    "Tensor " + QuoteForMessage(t.name) + " is stored in " + wf.name +
                        " but weights.index.json does not map it.");
      }
    }
  }
}

}  // namespace ckpt::rules::index_tensor_unmapped
