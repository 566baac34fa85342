// oms-key-unsupported: Signing certificate's key is not ECDSA or Ed25519.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsKeyUnsupported.
#include "rules/catalog.h"

namespace ckpt::rules::oms_key_unsupported {

const RuleInfo kRule{
    .id = "oms-key-unsupported",
    .name = "OmsKeyUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signing certificate's key is not ECDSA or Ed25519",
    .explanation =
        "The leaf certificate's public key is neither ECDSA on P-256, P-384 or P-521 nor Ed25519, the keys OpenSSF "
        "Model Signing signs with; its signature cannot be verified as a model signature.",
    .remediation = "Issue the signing certificate for an ECDSA P-256/P-384/P-521 key and re-sign the model.",
    .security = true,
};

}  // namespace ckpt::rules::oms_key_unsupported
