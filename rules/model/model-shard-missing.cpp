// model-shard-missing: weight_map names a shard that is not in the folder.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_shard_missing {

const RuleInfo kRule{
    .id = "model-shard-missing",
    .name = "ModelShardMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weight_map names a shard that is not in the folder",
    .explanation =
        "Every file a shard index maps a tensor to must be a safetensors file present in the "
        "index's folder; otherwise loading fails or, worse, picks up a file placed there later.",
    .remediation = "Add the missing shard (download it again), or re-export the model.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    if (!index.weight_map) continue;
    std::map<std::string, std::pair<const ShardIndex::Mapping*, std::size_t>> missing;  // file -> first, count
    for (const ShardIndex::Mapping& m : *index.weight_map) {
      if (!IsBareFileName(m.file) || artifact.FindWeightFile(InFolder(index.folder, m.file)) != nullptr) continue;
      auto [it, inserted] = missing.emplace(m.file, std::pair(&m, 0));
      ++it->second.second;
    }
    for (const auto& [file, first] : missing) {
      const bool present = artifact.HasEntry(InFolder(index.folder, file));
      sink.Report(kRule, MappingLocation(index, *first.first, true),
                  QuoteForMessage(index.json.name) + " maps " + std::to_string(first.second) +
                      (first.second == 1 ? " tensor" : " tensors") + " to " + QuoteForMessage(file) + ", which " +
                      (present ? "is not a safetensors file" : "is not in the folder") + ".");
    }
  }
  // Indexes of pickle-based shards (pytorch_model.bin.index.json): each mapped file must be
  // a pickle-based checkpoint the analysis read.
  for (const ModelIndex& index : artifact.model->pickle_indexes) {
    if (!index.weight_map) continue;
    std::map<std::string, std::pair<const ShardIndex::Mapping*, std::size_t>> missing;
    for (const ShardIndex::Mapping& m : *index.weight_map) {
      if (!IsBareFileName(m.file) || PickleShardTensors(artifact, index, m.file) != nullptr) continue;
      auto [it, inserted] = missing.emplace(m.file, std::pair(&m, 0));
      ++it->second.second;
    }
    for (const auto& [file, first] : missing) {
      const bool present = artifact.HasEntry(InFolder(index.folder, file));
      sink.Report(kRule, MappingLocation(index, *first.first, true),
                  QuoteForMessage(index.json.name) + " maps " + std::to_string(first.second) +
                      (first.second == 1 ? " tensor" : " tensors") + " to " + QuoteForMessage(file) + ", which " +
                      (present ? "is not a pickle-based checkpoint the analysis could read" : "is not in the folder") +
                      ".");
    }
  }
}

}  // namespace ckpt::rules::model_shard_missing
