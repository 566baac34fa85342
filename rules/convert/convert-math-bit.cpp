// convert-math-bit: Tensor with torch's conjugate or negative bit.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_math_bit {

const RuleInfo kRule{
    .id = "convert-math-bit",
    .name = "ConvertMathBit",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor with torch's conjugate or negative bit",
    .explanation =
        "The tensor's metadata sets torch's lazy conjugate or negative bit: its stored bytes are not its "
        "values, and a safetensors file has no way to say so. Copying the bytes would silently change "
        "the tensor.",
    .remediation = "Materialise the tensor (tensor.resolve_conj().resolve_neg()) before saving, then convert.",
    .security = true,
};

}  // namespace ckpt::rules::convert_math_bit
