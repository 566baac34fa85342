// gguf-rank-invalid: GGUF tensor rank outside 1..4.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_rank_invalid {

const RuleInfo kRule{
    .id = "gguf-rank-invalid",
    .name = "GgufRankInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF tensor rank outside 1..4",
    .explanation =
        "ggml tensors have 1 to 4 dims; any other rank cannot be loaded and stops the walk of the "
        "tensor infos.",
    .remediation = "Reshape the tensor to at most 4 dims.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::gguf_rank_invalid
