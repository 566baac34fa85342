// convert-dtype-unsupported: Tensor of a dtype safetensors cannot name.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_dtype_unsupported {

const RuleInfo kRule{
    .id = "convert-dtype-unsupported",
    .name = "ConvertDtypeUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor of a dtype safetensors cannot name",
    .explanation =
        "The tensor's dtype has no safetensors token (a quantized or complex type torch has and "
        "safetensors lacks), so no safetensors file can say what its bytes are.",
    .remediation =
        "Convert the tensor to a dtype safetensors names before saving, or keep it out of the converted "
        "output.",
    .security = true,
};

}  // namespace ckpt::rules::convert_dtype_unsupported
