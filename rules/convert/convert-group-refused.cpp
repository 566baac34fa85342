// convert-group-refused: Tensor refused in a Lensemble artifact.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_group_refused {

const RuleInfo kRule{
    .id = "convert-group-refused",
    .name = "ConvertGroupRefused",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor refused in a Lensemble artifact",
    .explanation =
        "A Lensemble artifact carries float32, bfloat16 or float16 tensors of its shared param groups "
        "only, and never a per-embodiment action head. The tensor is of another group, another dtype or "
        "an action head, so the artifact is not written.",
    .remediation =
        "Give the groups the artifact shares with --groups, or remove the tensor (and any action head) "
        "from the checkpoint first.",
    .security = true,
};

}  // namespace ckpt::rules::convert_group_refused
