// gguf-trailing-data: Bytes after the last GGUF tensor.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_trailing_data {

const RuleInfo kRule{
    .id = "gguf-trailing-data",
    .name = "GgufTrailingData",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bytes after the last GGUF tensor",
    .explanation =
        "After the last tensor only zero padding up to the alignment may follow; anything else is "
        "data no tensor accounts for (a place to hide a payload).",
    .remediation = "Regenerate the file; remove what was appended.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_trailing_data
