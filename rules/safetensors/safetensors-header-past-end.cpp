// safetensors-header-past-end: safetensors header length points past the end of the file.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_past_end {

const RuleInfo kRule{
    .id = "safetensors-header-past-end",
    .name = "SafetensorsHeaderPastEnd",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "safetensors header length points past the end of the file",
    .explanation =
        "The declared header length N is larger than the bytes that follow it: the file "
        "is truncated or the length is forged.",
    .remediation = "Re-download or re-export the weight file.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_header_past_end
