// gguf-type-unknown: Unknown or removed ggml type.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_type_unknown {

const RuleInfo kRule{
    .id = "gguf-type-unknown",
    .name = "GgufTypeUnknown",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Unknown or removed ggml type",
    .explanation =
        "A tensor's ggml type must be one ggml has today (its block size and bytes per block "
        "define the tensor's size); removed types (Q4_2, Q4_3, Q4_0_4_4, ...) and ids ggml never "
        "had are refused.",
    .remediation = "Requantize the model with a current llama.cpp.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_type_unknown
