// oms-identity-mismatch: the keyless signer is not the expected identity, or not from the expected issuer.
// Reported while verifying model signatures: engine/model_signature.cpp reports Diag::kOmsIdentityMismatch.
#include "rules/catalog.h"

namespace ckpt::rules::oms_identity_mismatch {

const RuleInfo kRule{
    .id = "oms-identity-mismatch",
    .name = "OmsIdentityMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signer identity or OIDC issuer is not the expected one",
    .explanation =
        "A valid Sigstore certificate only says that someone who could sign in somewhere signed. The model is "
        "trusted only when --identity equals, byte for byte, one of the certificate's subject alternative names "
        "(an email address or URI) and --issuer equals the OIDC issuer Fulcio recorded in it.",
    .remediation =
        "Give the identity and issuer of the publisher you trust (for a GitHub workflow: its workflow URI and "
        "https://token.actions.githubusercontent.com); do not trust a model signed by anyone else.",
    .security = true,
};

}  // namespace ckpt::rules::oms_identity_mismatch
