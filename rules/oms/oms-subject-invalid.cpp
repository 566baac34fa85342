// oms-subject-invalid: Statement subject is not one root digest.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsSubjectInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_subject_invalid {

const RuleInfo kRule{
    .id = "oms-subject-invalid",
    .name = "OmsSubjectInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Statement subject is not one root digest",
    .explanation =
        "A v1.0 model signature names exactly one subject with a sha256 digest, the root over all resource digests; "
        "this statement has none, several, or no sha256 digest.",
    .remediation = "Re-sign the model with a conforming signer.",
    .security = true,
};

}  // namespace ckpt::rules::oms_subject_invalid
