// oms-payload-type: DSSE payload type is not in-toto.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsPayloadType.
#include "rules/catalog.h"

namespace ckpt::rules::oms_payload_type {

const RuleInfo kRule{
    .id = "oms-payload-type",
    .name = "OmsPayloadType",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "DSSE payload type is not in-toto",
    .explanation =
        "The DSSE envelope's payloadType is not application/vnd.in-toto+json: the signed payload is not declared as an "
        "in-toto statement, so it is not read as one.",
    .remediation = "Re-sign the model; a model signature's payload is an in-toto Statement v1.",
    .security = true,
};

}  // namespace ckpt::rules::oms_payload_type
