// attest-envelope-invalid: Not a readable DSSE envelope.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_envelope_invalid {

const RuleInfo kRule{
    .id = "attest-envelope-invalid",
    .name = "AttestEnvelopeInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Not a readable DSSE envelope",
    .explanation =
        "The file given as a signed statement is not a DSSE v1 JSON envelope: it is not strict JSON, a "
        "field is missing or of the wrong type, or the payload or a signature is not base64. Nothing it "
        "says can be checked, so it proves nothing.",
    .remediation =
        "Give the envelope the tool wrote (ckpt-audit --attest ... --attestation-out); re-run the audit "
        "to sign a new one.",
    .security = true,
};

}  // namespace ckpt::rules::attest_envelope_invalid
