// oms-bundle-invalid: Model signature is not a Sigstore bundle.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsBundleInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_bundle_invalid {

const RuleInfo kRule{
    .id = "oms-bundle-invalid",
    .name = "OmsBundleInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Model signature is not a Sigstore bundle",
    .explanation =
        "The signature file is not a Sigstore bundle as OpenSSF Model Signing writes it: empty, not strict JSON "
        "(UTF-8, no duplicate keys), over 64 MiB, without a verificationMaterial or dsseEnvelope object, with bad "
        "base64, with other than exactly one DSSE signature, or with a certificate that is not DER. No signed "
        "statement can be read from it.",
    .remediation = "Obtain the bundle the signer published; re-sign the model if it was damaged.",
    .security = true,
};

}  // namespace ckpt::rules::oms_bundle_invalid
