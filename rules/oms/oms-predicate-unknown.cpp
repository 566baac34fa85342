// oms-predicate-unknown: Statement predicate is not a model signature.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsPredicateUnknown.
#include "rules/catalog.h"

namespace ckpt::rules::oms_predicate_unknown {

const RuleInfo kRule{
    .id = "oms-predicate-unknown",
    .name = "OmsPredicateUnknown",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Statement predicate is not a model signature",
    .explanation =
        "The statement's predicateType is neither https://model_signing/signature/v1.0 nor the legacy "
        "https://model_signing/Digests/v0.1: it is signed, but it says nothing the gate can compare with the model.",
    .remediation = "Verify the model with the model signature its publisher wrote, not another attestation.",
    .security = true,
};

}  // namespace ckpt::rules::oms_predicate_unknown
