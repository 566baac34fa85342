// safetensors-header-json: safetensors header is not a valid JSON object.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_json {

const RuleInfo kRule{
    .id = "safetensors-header-json",
    .name = "SafetensorsHeaderJson",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "safetensors header is not a valid JSON object",
    .explanation =
        "The header must be one strict JSON object; it does not parse, is not an object, "
        "or nests too deeply.",
    .remediation = "Re-export the weight file with safetensors.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_header_json
