// pickle-dtype-unsupported: Tensor dtype or byte order without a safetensors token.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_dtype_unsupported {

const RuleInfo kRule{
    .id = "pickle-dtype-unsupported",
    .name = "PickleDtypeUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor dtype or byte order without a safetensors token",
    .explanation =
        "complex128, quantized types and big-endian data have no safetensors dtype token: the "
        "tensor cannot be listed or converted faithfully.",
    .remediation = "Convert the tensor to a supported dtype (and little-endian) before saving.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::pickle_dtype_unsupported
