// safetensors-header-too-deep: safetensors header nests deeper than 127 levels.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_too_deep {

const RuleInfo kRule{
    .id = "safetensors-header-too-deep",
    .name = "SafetensorsHeaderTooDeep",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "safetensors header nests deeper than 127 levels",
    .explanation =
        "The reference reader (serde_json) refuses a header nested 128 levels or more, so no conforming reader can "
        "load this file; it is refused before anything else in the header is judged.",
    .remediation = "Re-export the weights with safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_header_too_deep
