// attest-subject-mismatch: Input no longer matches the signed subjects.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_subject_mismatch {

const RuleInfo kRule{
    .id = "attest-subject-mismatch",
    .name = "AttestSubjectMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Input no longer matches the signed subjects",
    .explanation =
        "The statement's subjects (each file of the input with its SHA-256) differ from the input now: a "
        "file changed, is missing, or was added. The signed verdict is about other bytes than the ones "
        "given.",
    .remediation = "Audit the input as it is now and sign a new statement, or find out why its files changed.",
    .security = true,
};

}  // namespace ckpt::rules::attest_subject_mismatch
