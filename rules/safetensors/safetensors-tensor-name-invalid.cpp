// safetensors-tensor-name-invalid: Tensor name in a weight file is empty, holds a control character or is __metadata__.
// Checked after reading, on the stored tensor names; the reader also reports a tensor
// named __metadata__ under this rule (Diag::kSafetensorsTensorNameInvalid).
#include "lib/core/text.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::safetensors_tensor_name_invalid {

const RuleInfo kRule{
    .id = "safetensors-tensor-name-invalid",
    .name = "SafetensorsTensorNameInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor name in a weight file is empty, holds a control character or is __metadata__",
    .explanation =
        "Tensor names must be non-empty and free of control characters (category Cc), and"
        " __metadata__ is reserved for the metadata map.",
    .remediation = "Rename the tensor before export.",
    .security = false,
    .inputs = InputKinds::Safetensors(),
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      if (!t.name.empty() && !HasControlCharacter(t.name)) continue;
      sink.ReportWith(kRule, wf.name, [&] {
        return std::pair(wf.TensorLocation(t),
                         "Tensor " + QuoteForMessage(t.name) + " in " + wf.name +
                             (t.name.empty() ? " has an empty name." : " has a control character in its name."));
      });
    }
  }
}

}  // namespace ckpt::rules::safetensors_tensor_name_invalid
