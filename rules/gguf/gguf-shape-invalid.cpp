// gguf-shape-invalid: GGUF tensor dims overflow or break the block size.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_shape_invalid {

const RuleInfo kRule{
    .id = "gguf-shape-invalid",
    .name = "GgufShapeInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF tensor dims overflow or break the block size",
    .explanation =
        "Each dim, the element count and the byte size must stay below 2^63 without wrap-around, "
        "and the first dim must be a multiple of the type's block size; otherwise the size "
        "readers compute differs.",
    .remediation = "Regenerate the file; quantize only tensors whose rows are a multiple of the block size.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_shape_invalid
