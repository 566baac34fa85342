// safetensors-offsets-not-contiguous: Tensor data has a hole or an overlap.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_offsets_not_contiguous {

const RuleInfo kRule{
    .id = "safetensors-offsets-not-contiguous",
    .name = "SafetensorsOffsetsNotContiguous",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor data has a hole or an overlap",
    .explanation =
        "Sorted by (begin, end), the first tensor must start at 0 and each must start "
        "where the previous ended. A hole can hide data; an overlap makes two tensors "
        "share bytes.",
    .remediation = "Re-export the weight file.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_offsets_not_contiguous
