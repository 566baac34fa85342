// index-wrong-shard: weight_map sends a tensor to the wrong shard.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::index_wrong_shard {

const RuleInfo kRule{
    .id = "index-wrong-shard",
    .name = "IndexWrongShard",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weight_map sends a tensor to the wrong shard",
    .explanation =
        "Each mapping must name the shard that actually holds the tensor, and every "
        "mapped tensor must exist.",
    .remediation = "Re-export the shard index.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.index || !artifact.index->weight_map) return;
  const ShardIndex& index = *artifact.index;
  for (const auto& m : *index.weight_map) {
    const WeightFile* named = artifact.FindWeightFile(m.file);
    if (named == nullptr || !named->header_read || named->FindTensor(m.tensor) != nullptr) continue;
    Location loc = index.json.At(m.offset, "/weight_map/" + json::EscapePointerToken(m.tensor));
    loc.tensor = m.tensor;
    StoredRef actual = FindStored(artifact, m.tensor);
    sink.Report(kRule, loc,
                "weight_map sends tensor " + QuoteForMessage(m.tensor) + " to " + std::string(m.file) + " but " +
                    (actual.file ? "it is stored in " + actual.file->name + "." : "no shard stores it."));
  }
}

}  // namespace ckpt::rules::index_wrong_shard
