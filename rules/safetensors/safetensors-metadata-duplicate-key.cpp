// safetensors-metadata-duplicate-key: Duplicate key inside __metadata__.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_metadata_duplicate_key {

const RuleInfo kRule{
    .id = "safetensors-metadata-duplicate-key",
    .name = "SafetensorsMetadataDuplicateKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Duplicate key inside __metadata__",
    .explanation =
        "Two equal keys in __metadata__ make its content depend on the parser; the "
        "reference reader silently keeps one.",
    .remediation = "Write each metadata key once.",
    .security = true,
};

}  // namespace ckpt::rules::safetensors_metadata_duplicate_key
