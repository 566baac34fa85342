// safetensors-dtype-not-allowed: Valid safetensors dtype that an artifact may not hold.
// Checked after reading, on each stored tensor's dtype.
#include "lib/model/dtype.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::safetensors_dtype_not_allowed {

const RuleInfo kRule{
    .id = "safetensors-dtype-not-allowed",
    .name = "SafetensorsDtypeNotAllowed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Valid safetensors dtype that an artifact may not hold",
    .explanation =
        "The dtype is valid safetensors (and its size was checked) but artifacts hold "
        "only F32, BF16 and F16.",
    .remediation = "Convert the tensor to float32, bfloat16 or float16 before export.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      if (!t.complete) continue;  // its entry was reported as invalid already
      const DtypeInfo* info = FindSafetensorsDtype(t.dtype);
      if (info == nullptr || info->allowed_in_artifact()) continue;
      sink.Report(kRule, wf.TensorLocation(t),
                  "Tensor " + QuoteForMessage(t.name) + " in " + wf.name + " has dtype " + t.dtype +
                      ": valid safetensors, but artifacts allow only F32, BF16 and F16.");
    }
  }
}

}  // namespace ckpt::rules::safetensors_dtype_not_allowed
