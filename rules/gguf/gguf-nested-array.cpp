// gguf-nested-array: GGUF array of arrays.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_nested_array {

const RuleInfo kRule{
    .id = "gguf-nested-array",
    .name = "GgufNestedArray",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "GGUF array of arrays",
    .explanation =
        "Nested arrays are valid GGUF, but ggml's loader refuses them: llama.cpp will not load "
        "the file.",
    .remediation = "Flatten the metadata value.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_nested_array
