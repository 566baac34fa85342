// model-index-wrong-shard: weight_map sends a tensor to a shard that does not hold it.
// Checked on the artifact model after reading (model folders).
#include <algorithm>
#include <map>
#include <optional>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_index_wrong_shard {

const RuleInfo kRule{
    .id = "model-index-wrong-shard",
    .name = "ModelIndexWrongShard",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weight_map sends a tensor to a shard that does not hold it",
    .explanation =
        "Every mapping must name the shard whose header actually declares the tensor. A wrong "
        "mapping makes loaders fail, or load a same-named tensor from the wrong file.",
    .remediation = "Re-export the shard index from the shards (or the model).",
    .security = true,
    .tier = Tier::kConsequence,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    if (!index.weight_map) continue;
    const std::vector<const WeightFile*> shards = MappedShards(artifact, index);
    // Each mapped file looked up once (the map's files are sorted), not once per tensor.
    const WeightMap& map = *index.weight_map;
    std::vector<const WeightFile*> file_of(map.files().size(), nullptr);
    for (std::size_t i = 0; i < file_of.size(); ++i) {
      if (IsBareFileName(map.files()[i])) file_of[i] = artifact.FindWeightFile(InFolder(index.folder, map.files()[i]));
    }
    for (std::size_t i = 0; i < map.size(); ++i) {
      const ShardIndex::Mapping m = map[i];
      const WeightFile* named = file_of[map.FileIndex(i)];
      if (named == nullptr || !named->header_read || named->FindTensor(m.tensor) != nullptr) continue;
      const WeightFile* actual = nullptr;
      for (const WeightFile* wf : shards) {
        if (wf->FindTensor(m.tensor) != nullptr) actual = wf;
      }
      sink.ReportWith(kRule, index.json.name, [&] {
        return std::pair(MappingLocation(index, m, true),
                         "weight_map sends tensor " + QuoteForMessage(m.tensor) + " to " + QuoteForMessage(m.file) +
                             " but " +
                             (actual ? "it is stored in " + QuoteForMessage(actual->name)
                                     : std::string("no mapped shard stores it")) +
                             ".");
      });
    }
  }
  for (const ModelIndex& index : artifact.model->pickle_indexes) {
    if (!index.weight_map) continue;
    // Which mapped file holds each tensor, from the pickle analyses (each file read once).
    std::map<std::string_view, std::string_view> holder;
    for (std::string_view file : index.weight_map->files()) {
      if (const auto* tensors = PickleShardTensors(artifact, index, file)) {
        for (const std::string& t : *tensors) holder.emplace(t, file);
      }
    }
    for (const ShardIndex::Mapping& m : *index.weight_map) {
      const auto* tensors = PickleShardTensors(artifact, index, m.file);
      if (tensors == nullptr || std::binary_search(tensors->begin(), tensors->end(), m.tensor)) continue;
      auto actual = holder.find(m.tensor);
      sink.ReportWith(kRule, index.json.name, [&] {
        return std::pair(MappingLocation(index, m, true),
                         "weight_map sends tensor " + QuoteForMessage(m.tensor) + " to " + QuoteForMessage(m.file) +
                             " but " +
                             (actual != holder.end() ? "it is stored in " + QuoteForMessage(actual->second)
                                                     : std::string("no mapped file stores it")) +
                             ".");
      });
    }
  }
}

}  // namespace ckpt::rules::model_index_wrong_shard
