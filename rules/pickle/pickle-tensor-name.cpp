// pickle-tensor-name: Tensors without a well-defined name.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_tensor_name {

const RuleInfo kRule{
    .id = "pickle-tensor-name",
    .name = "PickleTensorName",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensors without a well-defined name",
    .explanation =
        "Tensors are named by their path in the saved object (dict keys and list indices joined "
        "with '.'). A key that is neither a str nor an int, two paths giving one name, or nesting "
        "past 256 levels leave a tensor without one name.",
    .remediation = "Save a flat state dict with str keys.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::pickle_tensor_name
