// model-tensor-in-two-shards: Tensor stored in two shards of one index.
// Checked on the artifact model after reading (model folders).
#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_tensor_in_two_shards {

const RuleInfo kRule{
    .id = "model-tensor-in-two-shards",
    .name = "ModelTensorInTwoShards",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor stored in two shards of one index",
    .explanation =
        "Each tensor lives in exactly one shard; two copies can differ, and which one a loader "
        "takes depends on the loader.",
    .remediation = "Re-shard so that each tensor is stored once.",
    .security = true,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    const std::vector<const WeightFile*> shards = MappedShards(artifact, index);  // sorted by path
    // A file's position among the mapped shards, or shards.size() when it is not one of them.
    const auto path_rank = [&](const WeightFile* wf) {
      const auto at = std::lower_bound(shards.begin(), shards.end(), wf->name,
                                       [](const WeightFile* s, const std::string& name) { return s->name < name; });
      return at != shards.end() && *at == wf ? static_cast<std::size_t>(at - shards.begin()) : shards.size();
    };
    // The artifact's name index gives the repeated names (a map of every name was 60 MB at
    // 10^6 tensors); each is reported against its first mapped shard in path order, and the
    // reports are made in path and tensor order, as a walk over the shards would.
    struct Repeat {
      std::size_t shard;
      const StoredTensor* tensor;
      const WeightFile* earlier;
    };
    std::vector<Repeat> repeats;
    std::vector<std::pair<std::size_t, const StoredTensor*>> mapped;
    artifact.ForEachRepeatedName([&](std::span<const Artifact::StoredRef> declarations) {
      mapped.clear();
      for (const Artifact::StoredRef& ref : declarations) {
        const std::size_t rank = path_rank(ref.file);
        if (rank < shards.size() && ref.tensor->complete) mapped.emplace_back(rank, ref.tensor);
      }
      std::sort(mapped.begin(), mapped.end());
      for (std::size_t i = 1; i < mapped.size(); ++i) {
        repeats.push_back({mapped[i].first, mapped[i].second, shards[mapped.front().first]});
      }
    });
    std::sort(repeats.begin(), repeats.end(), [](const Repeat& a, const Repeat& b) {
      return std::pair(a.shard, a.tensor) < std::pair(b.shard, b.tensor);
    });
    for (const Repeat& repeat : repeats) {
      const WeightFile* wf = shards[repeat.shard];
      sink.ReportWith(kRule, wf->name, [&] {
        return std::pair(wf->TensorLocation(*repeat.tensor), "tensor " + QuoteForMessage(repeat.tensor->name) +
                                                                 " is stored in " +
                                                                 QuoteForMessage(repeat.earlier->name) +
                                                                 " and again in " + QuoteForMessage(wf->name) + ".");
      });
    }
  }
}

}  // namespace ckpt::rules::model_tensor_in_two_shards
