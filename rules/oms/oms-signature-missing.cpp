// oms-signature-missing: No model signature to verify.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsSignatureMissing.
#include "rules/catalog.h"

namespace ckpt::rules::oms_signature_missing {

const RuleInfo kRule{
    .id = "oms-signature-missing",
    .name = "OmsSignatureMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "No model signature to verify",
    .explanation =
        "--verify-model-signature was given without =SIG and the model folder has no model.sig: nothing says who "
        "signed these files, so the gate cannot vouch for them.",
    .remediation =
        "Publish the model with its OpenSSF Model Signing bundle (model_signing sign, or ckpt-audit --sign-model), or "
        "name the bundle with --verify-model-signature=PATH.",
    .security = true,
};

}  // namespace ckpt::rules::oms_signature_missing
