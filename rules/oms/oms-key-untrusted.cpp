// oms-key-untrusted: Bundle names a key other than the trusted one.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsKeyUntrusted.
#include "rules/catalog.h"

namespace ckpt::rules::oms_key_untrusted {

const RuleInfo kRule{
    .id = "oms-key-untrusted",
    .name = "OmsKeyUntrusted",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bundle names a key other than the trusted one",
    .explanation =
        "The bundle's public key hint (SHA-256 of the key's PEM), or the key it carries when the signature does not "
        "verify with the trusted key, is another key than --trusted-key: the model was signed by someone else.",
    .remediation = "Check that --trusted-key is the publisher's key; do not trust the model otherwise.",
    .security = true,
};

}  // namespace ckpt::rules::oms_key_untrusted
