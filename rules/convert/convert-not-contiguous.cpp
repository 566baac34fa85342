// convert-not-contiguous: Non-contiguous tensor.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_not_contiguous {

const RuleInfo kRule{
    .id = "convert-not-contiguous",
    .name = "ConvertNotContiguous",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Non-contiguous tensor",
    .explanation =
        "The tensor's strides are not row-major (as c10's _compute_contiguous judges them: empty tensors "
        "and size-1 dimensions aside), so its values are not one run of bytes in its storage and cannot "
        "be copied as a safetensors tensor.",
    .remediation = "Save tensor.contiguous() instead, then convert.",
    .security = true,
};

}  // namespace ckpt::rules::convert_not_contiguous
