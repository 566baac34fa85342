// model-tensor-in-two-shards: Tensor stored in two shards of one index.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

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
    std::map<std::string_view, const WeightFile*> first;
    for (const WeightFile* wf : MappedShards(artifact, index)) {
      for (const StoredTensor& t : wf->tensors) {
        if (!t.complete) continue;
        const auto inserted = first.emplace(t.name, wf);
        if (inserted.second) continue;
        const WeightFile* earlier = inserted.first->second;
        sink.ReportWith(kRule, wf->name, [&] {
          return std::pair(wf->TensorLocation(t), "tensor " + QuoteForMessage(t.name) + " is stored in " +
                                                      QuoteForMessage(earlier->name) + " and again in " +
                                                      QuoteForMessage(wf->name) + ".");
        });
      }
    }
  }
}

}  // namespace ckpt::rules::model_tensor_in_two_shards
