// model-index-path-escape: weight_map names a file outside the index's folder.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_index_path_escape {

const RuleInfo kRule{
    .id = "model-index-path-escape",
    .name = "ModelIndexPathEscape",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weight_map names a file outside the index's folder",
    .explanation =
        "Every weight_map value must be a bare file name in the index's own folder. A path with a "
        "separator, a parent component, a drive or a NUL makes a loader open a file elsewhere "
        "(path traversal).",
    .remediation = "Map every tensor to a shard file next to the index.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  std::vector<const ModelIndex*> all;
  for (const ModelIndex& index : artifact.model->indexes) all.push_back(&index);
  for (const ModelIndex& index : artifact.model->pickle_indexes) all.push_back(&index);  // pytorch_model.bin.index.json
  for (const ModelIndex* each : all) {
    const ModelIndex& index = *each;
    if (!index.weight_map) continue;
    for (const ShardIndex::Mapping& m : *index.weight_map) {
      if (IsBareFileName(m.file)) continue;
      sink.ReportWith(kRule, index.json.name, [&] {
        return std::pair(MappingLocation(index, m, true),
                         "weight_map maps tensor " + QuoteForMessage(m.tensor) + " to " + QuoteForMessage(m.file) +
                             ", which is not a file name in the index's folder: a loader would open a file elsewhere.");
      });
    }
  }
}

}  // namespace ckpt::rules::model_index_path_escape
