// safetensors-size-misaligned: Tensor size is not a whole number of bytes.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_size_misaligned {

const RuleInfo kRule{
    .id = "safetensors-size-misaligned",
    .name = "SafetensorsSizeMisaligned",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor size is not a whole number of bytes",
    .explanation = "For sub-byte dtypes the number of bits must be a multiple of 8.",
    .remediation = "Re-export with a shape whose size in bits is a multiple of 8.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_size_misaligned
