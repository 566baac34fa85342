// convert-storage-missing: Tensor without stored bytes.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_storage_missing {

const RuleInfo kRule{
    .id = "convert-storage-missing",
    .name = "ConvertStorageMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor without stored bytes",
    .explanation =
        "The tensor has no located storage record (a meta tensor, or a storage the container does not "
        "hold), so there are no bytes to copy.",
    .remediation = "Save the checkpoint with its tensors materialised, then convert.",
    .security = true,
};

}  // namespace ckpt::rules::convert_storage_missing
