// oms-statement-invalid: Signed statement is not a model signing statement.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsStatementInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_statement_invalid {

const RuleInfo kRule{
    .id = "oms-statement-invalid",
    .name = "OmsStatementInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signed statement is not a model signing statement",
    .explanation =
        "The verified payload is not strict JSON or not an in-toto Statement v1 of the shape OpenSSF Model Signing "
        "pins: a wrong _type, missing or mistyped predicate or serialization members, a resource without name, "
        "algorithm or hex digest, a name that is not a canonical relative path, a name given twice, a bad shard range, "
        "allow_symlinks not a boolean, or no resources.",
    .remediation = "Re-sign the model with a conforming signer.",
    .security = true,
};

}  // namespace ckpt::rules::oms_statement_invalid
