// model-tensor-unmapped: Tensor of a mapped shard is missing from weight_map.
// Checked on the artifact model after reading (model folders).
#include <algorithm>
#include <vector>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_tensor_unmapped {

const RuleInfo kRule{
    .id = "model-tensor-unmapped",
    .name = "ModelTensorUnmapped",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor of a mapped shard is missing from weight_map",
    .explanation =
        "Every tensor of every shard an index maps must be in its weight_map; loaders never load "
        "an unmapped tensor, so it is content that travels with the model unchecked (or a tensor "
        "the model silently loses).",
    .remediation = "Re-export the shard index from the shards (or the model).",
    .security = true,
    .tier = Tier::kConsequence,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    if (!index.weight_map) continue;
    // Entry positions sorted by name: 4 bytes a name, not a set of them.
    const std::vector<std::uint32_t> mapped = index.weight_map->SortedByTensor();
    for (const WeightFile* wf : MappedShards(artifact, index)) {
      for (const StoredTensor& t : wf->tensors) {
        if (!t.complete || index.weight_map->MapsTensor(mapped, t.name)) continue;
        sink.ReportWith(kRule, wf->name, [&] {
          Location loc = wf->TensorLocation(t);
          return std::pair(loc, "tensor " + QuoteForMessage(t.name) + " of " + QuoteForMessage(wf->name) +
                                    " is not in the weight_map of " + QuoteForMessage(index.json.name) + ".");
        });
      }
    }
  }
  for (const ModelIndex& index : artifact.model->pickle_indexes) {
    if (!index.weight_map) continue;
    const std::vector<std::uint32_t> mapped = index.weight_map->SortedByTensor();
    for (std::string_view file : index.weight_map->files()) {
      const auto* tensors = PickleShardTensors(artifact, index, file);
      if (tensors == nullptr) continue;
      const std::string path = InFolder(index.folder, file);
      for (const std::string& t : *tensors) {
        if (index.weight_map->MapsTensor(mapped, t)) continue;
        sink.ReportWith(kRule, path, [&] {
          return std::pair(FileLocation(path), "tensor " + QuoteForMessage(t) + " of " + QuoteForMessage(path) +
                                                   " is not in the weight_map of " + QuoteForMessage(index.json.name) +
                                                   ".");
        });
      }
    }
  }
}

}  // namespace ckpt::rules::model_tensor_unmapped
