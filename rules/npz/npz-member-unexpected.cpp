// npz-member-unexpected: an .npz member that is not a .npy array at the archive's root.
// Detected while reading: lib/formats/npz reports Diag::kNpzMemberUnexpected.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::npz_member_unexpected {

const RuleInfo kRule{
    .id = "npz-member-unexpected",
    .name = "NpzMemberUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An .npz archive holds a member numpy.savez does not write",
    .explanation =
        "numpy.savez writes one root-level NAME.npy member per array. A member in a folder or a folder "
        "entry is listed by np.load under a key no writer gave (\"sub/w\"), and tools that walk the "
        "archive disagree on what it holds. The member is not read.",
    .remediation = "Write the archive again with numpy.savez, one root-level member per array.",
    .security = true,
};

}  // namespace ckpt::rules::npz_member_unexpected
