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

namespace {

// The files `index` maps that `readable` does not find, each reported once with the number
// of tensors mapped to it; `kind` says what a present file is not.
template <typename Readable>
void ReportMissing(const Artifact& artifact, const ModelIndex& index, Readable readable, std::string_view kind,
                   FindingSink& sink) {
  if (!index.weight_map) return;
  std::map<std::string, std::pair<const ShardIndex::Mapping*, std::size_t>> missing;  // file -> first, count
  for (const ShardIndex::Mapping& m : *index.weight_map) {
    if (!IsBareFileName(m.file) || readable(m.file)) continue;
    auto [it, inserted] = missing.emplace(m.file, std::pair(&m, 0));
    ++it->second.second;
  }
  for (const auto& [file, first] : missing) {
    const bool present = artifact.HasEntry(InFolder(index.folder, file));
    sink.Report(kRule, MappingLocation(index, *first.first, true),
                QuoteForMessage(index.json.name) + " maps " + std::to_string(first.second) +
                    (first.second == 1 ? " tensor" : " tensors") + " to " + QuoteForMessage(file) + ", which " +
                    (present ? "is not " + std::string(kind) : std::string("is not in the folder")) + ".");
  }
}

}  // namespace

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    ReportMissing(
        artifact, index,
        [&](const std::string& file) { return artifact.FindWeightFile(InFolder(index.folder, file)) != nullptr; },
        "a safetensors file", sink);
  }
  // Indexes of pickle-based shards (pytorch_model.bin.index.json): each mapped file must be
  // a pickle-based checkpoint the analysis read.
  for (const ModelIndex& index : artifact.model->pickle_indexes) {
    ReportMissing(
        artifact, index, [&](const std::string& file) { return PickleShardTensors(artifact, index, file) != nullptr; },
        "a pickle-based checkpoint the analysis could read", sink);
  }
}

}  // namespace ckpt::rules::model_shard_missing
