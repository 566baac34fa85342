// npz-object-array: an .npz member holds an object array (a pickle).
// Detected while reading: lib/formats/npz (through ReadNpy) reports Diag::kNpzObjectArray.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::npz_object_array {

const RuleInfo kRule{
    .id = "npz-object-array",
    .name = "NpzObjectArray",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An .npz member is an object array (a pickle)",
    .explanation =
        "An object dtype ('|O') stores a pickle instead of numbers, which np.load(allow_pickle=True) "
        "unpickles for that key. The pickle is analysed with numpy's policy (its findings are reported "
        "too, located in the member), but the member never passes, whatever it holds.",
    .remediation = "Store numeric arrays only (numpy.savez of non-object arrays), or use safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::npz_object_array
