// oms-root-mismatch: Subject digest is not the root of the resources.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsRootMismatch.
#include "rules/catalog.h"

namespace ckpt::rules::oms_root_mismatch {

const RuleInfo kRule{
    .id = "oms-root-mismatch",
    .name = "OmsRootMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Subject digest is not the root of the resources",
    .explanation =
        "The subject's sha256 is not SHA-256 over the concatenated resource digests in the order written: the "
        "statement's resource list and its root disagree, so one of them was not what was signed as meant.",
    .remediation = "Re-sign the model; do not trust a statement whose root and resources disagree.",
    .security = true,
};

}  // namespace ckpt::rules::oms_root_mismatch
