// safetensors-size-overflow: Tensor size overflows 64 bits.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_size_overflow {

const RuleInfo kRule{
    .id = "safetensors-size-overflow",
    .name = "SafetensorsSizeOverflow",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor size overflows 64 bits",
    .explanation =
        "The product of the shape and the element width overflows 64 bits, as the "
        "reference reader computes it: corrupt or hostile shape.",
    .remediation = "Re-export the weight file.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_size_overflow
