// safetensors-size-mismatch: data_offsets span does not match dtype and shape.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_size_mismatch {

const RuleInfo kRule{
    .id = "safetensors-size-mismatch",
    .name = "SafetensorsSizeMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "data_offsets span does not match dtype and shape",
    .explanation =
        "end - begin must equal the tensor's byte size (and end must not be before "
        "begin); otherwise the bytes read are not the tensor declared.",
    .remediation = "Re-export the weight file.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_size_mismatch
