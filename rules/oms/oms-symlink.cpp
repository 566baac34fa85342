// oms-symlink: Model folder holds a symbolic link the signature does not allow.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsSymlink.
#include "rules/catalog.h"

namespace ckpt::rules::oms_symlink {

const RuleInfo kRule{
    .id = "oms-symlink",
    .name = "OmsSymlink",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Model folder holds a symbolic link the signature does not allow",
    .explanation =
        "A symbolic link in the model folder is not covered: the signature says allow_symlinks false, or the link "
        "leads outside the model folder, to a directory or nowhere. What the link points to is not what was signed, "
        "and a loader would follow it.",
    .remediation = "Replace the link with the file itself and re-sign, or remove it.",
    .security = true,
};

}  // namespace ckpt::rules::oms_symlink
