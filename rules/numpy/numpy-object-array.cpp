// numpy-object-array: .npy object array (a pickle).
// Detected while reading, by lib/formats/torch_checkpoint.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::numpy_object_array {

const RuleInfo kRule{
    .id = "numpy-object-array",
    .name = "NumpyObjectArray",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = ".npy object array (a pickle)",
    .explanation =
        "An object dtype ('|O') stores a pickle instead of numbers: numpy.load with allow_pickle "
        "runs it. Such a file never passes, whatever its pickle holds.",
    .remediation = "Store numeric arrays only, or use safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::numpy_object_array
