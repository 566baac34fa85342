// gguf-duplicate-key: Duplicate GGUF metadata key.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_duplicate_key {

const RuleInfo kRule{
    .id = "gguf-duplicate-key",
    .name = "GgufDuplicateKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Duplicate GGUF metadata key",
    .explanation =
        "Two values under one key: one reader keeps the first, another the last, so the model's "
        "configuration (or its chat template) depends on the reader.",
    .remediation = "Regenerate the file with one value per key.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_duplicate_key
