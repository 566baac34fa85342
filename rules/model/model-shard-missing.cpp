// model-shard-missing: weight_map names a shard that is not in the folder.
// Checked on the artifact model after reading (model folders).
#include <string>
#include <vector>

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
  const WeightMap& map = *index.weight_map;
  const std::vector<WeightMap::FileUse> uses = map.FileUses();
  for (std::size_t f = 0; f < uses.size(); ++f) {
    const std::string& file = map.files()[f];
    if (!IsBareFileName(file) || readable(file)) continue;  // every file has an entry
    const bool present = artifact.HasEntry(InFolder(index.folder, file));
    sink.Report(kRule, MappingLocation(index, map[uses[f].first], true),
                QuoteForMessage(index.json.name) + " maps " + std::to_string(uses[f].entries) +
                    (uses[f].entries == 1 ? " tensor" : " tensors") + " to " + QuoteForMessage(file) + ", which " +
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
