// oms-file-missing: Signed file missing from the model folder.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsFileMissing.
#include "rules/catalog.h"

namespace ckpt::rules::oms_file_missing {

const RuleInfo kRule{
    .id = "oms-file-missing",
    .name = "OmsFileMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signed file missing from the model folder",
    .explanation =
        "A file the signed statement covers is not in the model folder: it was removed or renamed after signing.",
    .remediation = "Restore the file from the publisher's copy of the model.",
    .security = true,
};

}  // namespace ckpt::rules::oms_file_missing
