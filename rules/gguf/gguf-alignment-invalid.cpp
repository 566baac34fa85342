// gguf-alignment-invalid: general.alignment is not a u32 power of two.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_alignment_invalid {

const RuleInfo kRule{
    .id = "gguf-alignment-invalid",
    .name = "GgufAlignmentInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "general.alignment is not a u32 power of two",
    .explanation = "The alignment places every tensor; ggml requires a u32 power of two.",
    .remediation = "Regenerate the file with a valid general.alignment (32 by default).",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::gguf_alignment_invalid
