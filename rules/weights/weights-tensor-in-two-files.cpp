// weights-tensor-in-two-files: Tensor stored in two weight files.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::weights_tensor_in_two_files {

const RuleInfo kRule{
    .id = "weights-tensor-in-two-files",
    .name = "WeightsTensorInTwoFiles",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor stored in two weight files",
    .explanation =
        "Each tensor lives in exactly one weight file; two copies can differ, and a "
        "reader could pick either.",
    .remediation = "Re-shard so that each tensor is stored once.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      const StoredRef first = FindStored(artifact, t.name);  // the earliest file declaring it
      if (first.file == nullptr || first.file == &wf) continue;
      sink.Report(
          kRule, wf.TensorLocation(t),
          "Tensor " + QuoteForMessage(t.name) + " is stored in both " + first.file->name + " and " + wf.name + ".");
    }
  }
}

}  // namespace ckpt::rules::weights_tensor_in_two_files
