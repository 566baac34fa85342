// model-total-size: metadata.total_size is not the sum of the tensors' byte sizes.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_total_size {

const RuleInfo kRule{
    .id = "model-total-size",
    .name = "ModelTotalSize",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "metadata.total_size is not the sum of the tensors' byte sizes",
    .explanation =
        "transformers writes metadata.total_size as the sum of the byte sizes of the tensors the "
        "index maps. Another value means the index was written for other shards, or by a writer "
        "that counts differently (mlx counts whole shard files).",
    .remediation = "Re-export the index, or correct total_size.",
    .security = false,
    .tier = Tier::kConsequence,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    if (!index.total_size || !index.weight_map) continue;
    std::uint64_t tensors = 0;
    std::uint64_t files = 0;
    bool complete = true;
    for (const WeightFile* wf : MappedShards(artifact, index)) {
      complete &= wf->header_read;
      files += wf->size;
      for (const StoredTensor& t : wf->tensors) tensors += t.complete ? t.data_length : 0;
    }
    if (!complete || *index.total_size == tensors) continue;
    std::string message = "metadata.total_size in " + QuoteForMessage(index.json.name) + " is " +
                          std::to_string(*index.total_size) + " but the tensors it maps hold " +
                          std::to_string(tensors) + " bytes";
    message += *index.total_size == files ? "; it is the sum of the shard file sizes, as mlx writes it." : ".";
    sink.Report(kRule, index.json.At(index.total_size_offset, "/metadata/total_size"), std::move(message));
  }
}

}  // namespace ckpt::rules::model_total_size
