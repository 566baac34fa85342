// oms-sct-invalid: no embedded certificate transparency timestamp of the Fulcio certificate verifies.
// Reported while verifying model signatures: engine/model_signature.cpp reports Diag::kOmsSctInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_sct_invalid {

const RuleInfo kRule{
    .id = "oms-sct-invalid",
    .name = "OmsSctInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signing certificate has no valid certificate transparency timestamp",
    .explanation =
        "Fulcio logs every certificate it issues in a certificate transparency log and embeds the log's signed "
        "certificate timestamp (SCT) in it. None of the certificate's SCTs comes from a CT log of the trusted root "
        "and verifies over the RFC 6962 precertificate entry, so the certificate may have been issued without "
        "anyone being able to see it.",
    .remediation =
        "Verify against the trusted root of the Sigstore instance that issued the certificate; do not trust the model "
        "when its certificate was not logged.",
    .security = true,
};

}  // namespace ckpt::rules::oms_sct_invalid
