// attest-verdict-fail: Signed verdict is fail.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_verdict_fail {

const RuleInfo kRule{
    .id = "attest-verdict-fail",
    .name = "AttestVerdictFail",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signed verdict is fail",
    .explanation =
        "The statement verifies, but the audit it records failed. A failed audit is a true statement "
        "too; it does not make the input trustworthy, and a history treats the round as an artifact that "
        "failed its audit.",
    .remediation = "Read the findings the statement lists, fix the input, audit it again and sign the new result.",
    .security = false,
};

}  // namespace ckpt::rules::attest_verdict_fail
