// safetensors-metadata-invalid: __metadata__ is not a map of strings to strings.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_metadata_invalid {

const RuleInfo kRule{
    .id = "safetensors-metadata-invalid",
    .name = "SafetensorsMetadataInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "__metadata__ is not a map of strings to strings",
    .explanation =
        "__metadata__ is optional but, when present, must be an object whose values are "
        "all strings; null or any other value is refused even though the reference reader"
        " accepts null.",
    .remediation = "Write __metadata__ as a string-to-string map, or leave it out.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_metadata_invalid
