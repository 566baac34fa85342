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
    .explanation = "Each tensor lives in exactly one weight file; two copies can differ, and a "
                    "reader could pick either.",
    .remediation = "Re-shard so that each tensor is stored once.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (std::size_t i = 0; i < artifact.weights.size(); ++i) {
    for (const StoredTensor& t : artifact.weights[i].tensors) {
      for (std::size_t j = 0; j < i; ++j) {
        if (artifact.weights[j].FindTensor(t.name) != nullptr) {
          sink.Report(kRule, artifact.weights[i].TensorLocation(t),
                      "Tensor " + QuoteForMessage(t.name) + " is stored in both " + artifact.weights[j].name + " and " +
                          artifact.weights[i].name + ".");
          break;
        }
      }
    }
  }
}

}  // namespace ckpt::rules::weights_tensor_in_two_files
