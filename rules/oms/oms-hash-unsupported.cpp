// oms-hash-unsupported: Statement uses a hash that cannot be recomputed.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsHashUnsupported.
#include "rules/catalog.h"

namespace ckpt::rules::oms_hash_unsupported {

const RuleInfo kRule{
    .id = "oms-hash-unsupported",
    .name = "OmsHashUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Statement uses a hash that cannot be recomputed",
    .explanation =
        "The serialization's hash_type or a resource's algorithm is not SHA-256 or BLAKE2b-512 as the serialization "
        "method writes it (blake3, an unknown name, or an algorithm inconsistent with hash_type): the files cannot be "
        "compared with what was signed.",
    .remediation = "Re-sign the model with hash_type sha256.",
    .security = true,
};

}  // namespace ckpt::rules::oms_hash_unsupported
