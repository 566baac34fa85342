// oms-special-file: Model folder holds a FIFO, socket or device.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsSpecialFile.
#include "rules/catalog.h"

namespace ckpt::rules::oms_special_file {

const RuleInfo kRule{
    .id = "oms-special-file",
    .name = "OmsSpecialFile",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Model folder holds a FIFO, socket or device",
    .explanation =
        "A FIFO, socket or device in the model folder is neither a signed file nor ignorable: reading it could block "
        "or yield anything.",
    .remediation = "Remove it from the model folder.",
    .security = true,
};

}  // namespace ckpt::rules::oms_special_file
