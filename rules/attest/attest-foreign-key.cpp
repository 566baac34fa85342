// attest-foreign-key: Signed by a key that is not trusted.
// Reported while verifying signed statements, by lib/attest/dsse.cpp and lib/attest/statement.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::attest_foreign_key {

const RuleInfo kRule{
    .id = "attest-foreign-key",
    .name = "AttestForeignKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signed by a key that is not trusted",
    .explanation =
        "No signature of the envelope names the trusted key (DSSE keyid: the SHA-256 of its "
        "SubjectPublicKeyInfo). A statement signed by any other key proves only that someone holding "
        "that key wrote it.",
    .remediation =
        "Verify with the public key of the signer you trust (--trusted-key), or have the statement "
        "signed again with it.",
    .security = true,
};

}  // namespace ckpt::rules::attest_foreign_key
