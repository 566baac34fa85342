// attest-signature-invalid: Signature does not verify.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_signature_invalid {

const RuleInfo kRule{
    .id = "attest-signature-invalid",
    .name = "AttestSignatureInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signature does not verify",
    .explanation =
        "A signature names the trusted key (or names none) but is not that key's Ed25519 signature over "
        "the DSSE pre-authentication encoding of this payload type and payload: the payload, its type or "
        "the signature changed after signing.",
    .remediation =
        "Do not trust the statement; obtain the original envelope or audit the input again and sign a "
        "new one.",
    .security = true,
};

}  // namespace ckpt::rules::attest_signature_invalid
