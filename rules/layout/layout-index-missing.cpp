// layout-index-missing: Sharded artifact without weights.index.json.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_index_missing {

const RuleInfo kRule{
    .id = "layout-index-missing",
    .name = "LayoutIndexMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Sharded artifact without weights.index.json",
    .explanation =
        "A sharded artifact must carry weights.index.json mapping every tensor to its "
        "shard; without it the shard layout cannot be cross-checked.",
    .remediation = "Publish the weights.index.json written together with the shards.",
    .security = false,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  bool has_shard = false;
  for (const DirectoryEntry& e : artifact.entries) {
    if (ParseShardName(e.name)) has_shard = true;
    if (e.name == kShardIndexFileName) return;
  }
  if (has_shard) {
    sink.Report(kRule, FileLocation(std::string(kShardIndexFileName)),
                "The artifact is sharded but has no weights.index.json.");
  }
}

}  // namespace ckpt::rules::layout_index_missing
