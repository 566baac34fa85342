// gguf-tensor-name-invalid: GGUF tensor name too long or not text.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_tensor_name_invalid {

const RuleInfo kRule{
    .id = "gguf-tensor-name-invalid",
    .name = "GgufTensorNameInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF tensor name too long or not text",
    .explanation =
        "ggml holds a tensor name in 64 bytes with its NUL: a longer name is cut, so two tensors "
        "can end up with one name.",
    .remediation = "Rename the tensor (at most 63 bytes of UTF-8).",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_tensor_name_invalid
