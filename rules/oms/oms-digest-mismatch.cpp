// oms-digest-mismatch: File differs from what was signed.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsDigestMismatch.
#include "rules/catalog.h"

namespace ckpt::rules::oms_digest_mismatch {

const RuleInfo kRule{
    .id = "oms-digest-mismatch",
    .name = "OmsDigestMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "File differs from what was signed",
    .explanation =
        "A file the signature covers does not hash to its signed digest (or, under shards, to its signed ranges and "
        "digests): its bytes changed after signing.",
    .remediation =
        "Do not use the model; restore the file from the publisher, or have it signed again if the change is intended.",
    .security = true,
};

}  // namespace ckpt::rules::oms_digest_mismatch
