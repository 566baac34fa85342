// numpy-header-invalid: Malformed .npy header or data.
// Detected while reading, by lib/formats/torch_checkpoint.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::numpy_header_invalid {

const RuleInfo kRule{
    .id = "numpy-header-invalid",
    .name = "NumpyHeaderInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Malformed .npy header or data",
    .explanation =
        "The .npy magic, version, header length, header dict (descr, fortran_order, shape) or "
        "data size is wrong: the array cannot be located without guessing.",
    .remediation = "Save the array again with numpy.save, or better, with safetensors.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::numpy_header_invalid
