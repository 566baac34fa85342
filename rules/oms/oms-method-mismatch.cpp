// oms-method-mismatch: Bundle is not of the trust method asked for.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsMethodMismatch.
#include "rules/catalog.h"

namespace ckpt::rules::oms_method_mismatch {

const RuleInfo kRule{
    .id = "oms-method-mismatch",
    .name = "OmsMethodMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bundle is not of the trust method asked for",
    .explanation =
        "The bundle's verification material is not the one the trust option checks: a bare public key (--trusted-key) "
        "needs a publicKey bundle, --trusted-cert-chain an x509CertificateChain, --sigstore-trusted-root a Fulcio "
        "certificate. A bundle of another method cannot be judged by that trust.",
    .remediation =
        "Verify with the trust method the signer used (key, certificate or Sigstore), or obtain a bundle signed that "
        "way.",
    .security = true,
};

}  // namespace ckpt::rules::oms_method_mismatch
