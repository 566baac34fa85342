// oms-signature-invalid: Model signature does not verify.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsSignatureInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_signature_invalid {

const RuleInfo kRule{
    .id = "oms-signature-invalid",
    .name = "OmsSignatureInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Model signature does not verify",
    .explanation =
        "The DSSE signature does not verify over the pre-authentication encoding of the payload (nor, for key and "
        "certificate bundles, over model_signing 0.2's legacy one) with the trusted key or the certificate's key: the "
        "payload or the signature was changed after signing.",
    .remediation = "Do not trust the model; obtain the original bundle, or have the publisher sign it again.",
    .security = true,
};

}  // namespace ckpt::rules::oms_signature_invalid
