// index-total-size: total_size differs from the sum of tensor sizes.
// Checked here, after the artifact is read.
#include "lib/core/checked_math.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::index_total_size {

const RuleInfo kRule{
    .id = "index-total-size",
    .name = "IndexTotalSize",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "total_size differs from the sum of tensor sizes",
    .explanation =
        "metadata.total_size must equal the sum of the byte sizes of all tensors, as "
        "transformers writes it.",
    .remediation = "Re-export the shard index.",
    .security = false,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.index || !artifact.index->total_size) return;
  std::uint64_t sum = 0;
  for (const WeightFile& wf : artifact.weights) {
    if (!wf.valid) return;  // the sum is only meaningful over well-formed shards
    for (const StoredTensor& t : wf.tensors) {
      auto next = CheckedAdd(sum, t.end - t.begin);
      if (!next) return;
      sum = *next;
    }
  }
  if (artifact.weights.empty() || sum == *artifact.index->total_size) return;
  const ShardIndex& index = *artifact.index;
  const auto total = index.json.doc.root().Find("metadata")->Find("total_size");
  sink.Report(kRule, index.json.At(total->offset(), "/metadata/total_size"),
              "metadata.total_size is " + std::to_string(*index.total_size) + " but the shards' tensors hold " +
                  std::to_string(sum) + " bytes.");
}

}  // namespace ckpt::rules::index_total_size
