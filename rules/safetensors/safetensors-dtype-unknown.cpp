// safetensors-dtype-unknown: Unknown safetensors dtype.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_dtype_unknown {

const RuleInfo kRule{
    .id = "safetensors-dtype-unknown",
    .name = "SafetensorsDtypeUnknown",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Unknown safetensors dtype",
    .explanation =
        "The dtype is not one the reference safetensors reader knows, so the tensor's "
        "size cannot be checked.",
    .remediation = "Re-export with a supported dtype (float32, bfloat16 or float16 for artifacts).",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_dtype_unknown
