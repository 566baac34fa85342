// oms-cert-usage: Signing certificate is not for signing.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsCertUsage.
#include "rules/catalog.h"

namespace ckpt::rules::oms_cert_usage {

const RuleInfo kRule{
    .id = "oms-cert-usage",
    .name = "OmsCertUsage",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signing certificate is not for signing",
    .explanation =
        "The leaf certificate allows neither digitalSignature (KeyUsage) nor codeSigning (ExtendedKeyUsage): its key "
        "was not certified for signing.",
    .remediation = "Issue the signing certificate with digitalSignature or codeSigning and re-sign the model.",
    .security = true,
};

}  // namespace ckpt::rules::oms_cert_usage
