// attest-statement-invalid: Statement does not parse.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_statement_invalid {

const RuleInfo kRule{
    .id = "attest-statement-invalid",
    .name = "AttestStatementInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Statement does not parse",
    .explanation =
        "The signed payload is not an in-toto Statement v1 with the fields its predicate needs (subjects "
        "with SHA-256 digests, the predicate's verdict, hashes and findings with their types), or it "
        "lacks what the check needs, such as a recomputed content_hash for a history. A signature over "
        "something unreadable proves nothing.",
    .remediation = "Sign a statement written by ckpt-audit --attest (audited with the content hash recomputed).",
    .security = true,
};

}  // namespace ckpt::rules::attest_statement_invalid
