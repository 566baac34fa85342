// safetensors-tensor-name-invalid: Tensor name in a weight file is empty, holds a control character or is __metadata__.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

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
};

}  // namespace ckpt::rules::safetensors_tensor_name_invalid
