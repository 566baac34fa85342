// model-unreferenced-weights: Safetensors file that the folder's index does not map.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_unreferenced_weights {

const RuleInfo kRule{
    .id = "model-unreferenced-weights",
    .name = "ModelUnreferencedWeights",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Safetensors file that the folder's index does not map",
    .explanation =
        "Where a folder has a shard index, loaders read exactly the files its weight_map names. "
        "Another safetensors file beside it is loaded by nothing (or by a loader that prefers it "
        "to the shards): weights travelling unverified by the index.",
    .remediation = "Remove the file, or map its tensors in the index.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  std::map<std::string, std::vector<const ModelIndex*>> indexes_by_folder;
  std::set<const WeightFile*> mapped;  // by any index: each index's shards listed once
  for (const ModelIndex& index : artifact.model->indexes) {
    indexes_by_folder[index.folder].push_back(&index);
    for (const WeightFile* shard : MappedShards(artifact, index)) mapped.insert(shard);
  }
  for (const WeightFile& wf : artifact.weights) {
    auto it = indexes_by_folder.find(FolderOf(wf.name));
    if (it == indexes_by_folder.end()) continue;  // no index here: a stand-alone model file
    if (mapped.count(&wf) != 0) continue;
    sink.Report(kRule, FileLocation(wf.name),
                QuoteForMessage(wf.name) + " is not mapped by " + QuoteForMessage(it->second.front()->json.name) +
                    " beside it: no loader that follows the index reads it.");
  }
}

}  // namespace ckpt::rules::model_unreferenced_weights
