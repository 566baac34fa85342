// pickle-tensor-invalid: Tensor rebuild not accepted.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_tensor_invalid {

const RuleInfo kRule{
    .id = "pickle-tensor-invalid",
    .name = "PickleTensorInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor rebuild not accepted",
    .explanation =
        "A rebuilt tensor must fit inside its storage (offset, size and stride), and only the "
        "plain rebuild functions are modelled; quantized, sparse, nested, device and subclass "
        "rebuilds, and legacy storage views, fail closed.",
    .remediation = "Convert the tensors to plain dense tensors and save them with safetensors.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::pickle_tensor_invalid
