// safetensors-header-too-large: safetensors header length above 100,000,000 bytes.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_too_large {

const RuleInfo kRule{
    .id = "safetensors-header-too-large",
    .name = "SafetensorsHeaderTooLarge",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "safetensors header length above 100,000,000 bytes",
    .explanation =
        "The header length is checked against the reference reader's cap before anything "
        "is allocated; a larger claim is corruption or a memory-exhaustion attempt.",
    .remediation = "Re-export the weight file with safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_header_too_large
