// gguf-value-type-invalid: GGUF value type outside 0..12, or a bool other than 0 or 1.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_value_type_invalid {

const RuleInfo kRule{
    .id = "gguf-value-type-invalid",
    .name = "GgufValueTypeInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF value type outside 0..12, or a bool other than 0 or 1",
    .explanation =
        "The value types are 0..12; any other type cannot be walked, and a bool byte other than 0 "
        "or 1 is read differently by different readers.",
    .remediation = "Regenerate the file with gguf-py or llama.cpp.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::gguf_value_type_invalid
