// attest-predicate-unknown: Statement of another predicate type.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_predicate_unknown {

const RuleInfo kRule{
    .id = "attest-predicate-unknown",
    .name = "AttestPredicateUnknown",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Statement of another predicate type",
    .explanation =
        "The statement's predicateType is not the one this check reads (the ckpt-audit audit or "
        "derivation predicate, versioned /v1). A statement about something else, or of a version this "
        "tool does not know, is never taken as evidence for this check.",
    .remediation =
        "Verify audit statements with --verify-attestation or ckpt-chain, derivation records with "
        "--verify-derivation; upgrade the tool for a newer predicate version.",
    .security = true,
};

}  // namespace ckpt::rules::attest_predicate_unknown
