// safetensors-duplicate-tensor: Tensor declared twice in one safetensors header.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_duplicate_tensor {

const RuleInfo kRule{
    .id = "safetensors-duplicate-tensor",
    .name = "SafetensorsDuplicateTensor",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor declared twice in one safetensors header",
    .explanation =
        "Names are compared after decoding; a repeated name (even with an identical "
        "entry) lets two readers load different bytes for the same tensor. The reference "
        "reader keeps one silently.",
    .remediation = "Re-export so that each tensor appears once.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_duplicate_tensor
