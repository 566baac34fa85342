// safetensors-header-not-utf8: safetensors header is not valid UTF-8.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_not_utf8 {

const RuleInfo kRule{
    .id = "safetensors-header-not-utf8",
    .name = "SafetensorsHeaderNotUtf8",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "safetensors header is not valid UTF-8",
    .explanation = "The JSON header of a safetensors file must be UTF-8.",
    .remediation = "Re-export the weight file with safetensors.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_header_not_utf8
