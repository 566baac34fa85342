// npz-member-size: an .npz member's data is not numel x itemsize bytes.
// Detected while reading: lib/formats/npz (through ReadNpy) reports Diag::kNpzMemberSize.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::npz_member_size {

const RuleInfo kRule{
    .id = "npz-member-size",
    .name = "NpzMemberSize",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An .npz member's data does not match its shape and dtype",
    .explanation =
        "numpy.savez writes each member as a .npy header and exactly numel x itemsize bytes. Fewer bytes "
        "fail np.load; more are bytes no key names, which one reader ignores and another reads.",
    .remediation = "Write the archive again with numpy.savez.",
    .security = true,
};

}  // namespace ckpt::rules::npz_member_size
