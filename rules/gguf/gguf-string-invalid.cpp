// gguf-string-invalid: GGUF string or key not UTF-8, with NUL, or empty.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_string_invalid {

const RuleInfo kRule{
    .id = "gguf-string-invalid",
    .name = "GgufStringInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF string or key not UTF-8, with NUL, or empty",
    .explanation =
        "GGUF strings are UTF-8; a NUL or invalid byte makes readers disagree on the text, and an "
        "empty key names nothing.",
    .remediation = "Regenerate the file with gguf-py or llama.cpp.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_string_invalid
