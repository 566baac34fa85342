// gguf-offset-invalid: GGUF tensor not where ggml's layout puts it.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_offset_invalid {

const RuleInfo kRule{
    .id = "gguf-offset-invalid",
    .name = "GgufOffsetInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF tensor not where ggml's layout puts it",
    .explanation =
        "ggml's loader requires each tensor at the aligned end of the previous one (the first at "
        "0): a gap, an overlap or a misaligned offset means two tensors share bytes or bytes are "
        "hidden between them.",
    .remediation = "Regenerate the file with gguf-py or llama.cpp.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_offset_invalid
