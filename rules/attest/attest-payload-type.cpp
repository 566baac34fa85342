// attest-payload-type: Envelope payload is not an in-toto statement.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_payload_type {

const RuleInfo kRule{
    .id = "attest-payload-type",
    .name = "AttestPayloadType",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Envelope payload is not an in-toto statement",
    .explanation =
        "The envelope's payloadType is not application/vnd.in-toto+json. The type is signed with the "
        "payload (the DSSE pre-authentication encoding), and a payload of another type is not a "
        "statement the tools verify, whatever it holds.",
    .remediation = "Sign an in-toto Statement v1 with payloadType application/vnd.in-toto+json.",
    .security = true,
};

}  // namespace ckpt::rules::attest_payload_type
