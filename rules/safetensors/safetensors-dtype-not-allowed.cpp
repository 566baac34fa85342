// safetensors-dtype-not-allowed: Valid safetensors dtype that an artifact may not hold.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

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

}  // namespace ckpt::rules::safetensors_dtype_not_allowed
