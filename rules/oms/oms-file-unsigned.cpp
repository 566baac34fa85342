// oms-file-unsigned: File not covered by the model signature.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsFileUnsigned.
#include "rules/catalog.h"

namespace ckpt::rules::oms_file_unsigned {

const RuleInfo kRule{
    .id = "oms-file-unsigned",
    .name = "OmsFileUnsigned",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "File not covered by the model signature",
    .explanation =
        "A file of the model folder, not under an ignored path, is named by no resource of the signed statement: it "
        "was added after signing, and a loader may read it.",
    .remediation = "Remove the file, or have the publisher sign the folder as it is.",
    .security = true,
};

}  // namespace ckpt::rules::oms_file_unsigned
