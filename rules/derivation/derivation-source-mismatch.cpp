// derivation-source-mismatch: Tensor bytes differ from their source record.
// Reported while verifying signed statements, by lib/attest/derivation.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::derivation_source_mismatch {

const RuleInfo kRule{
    .id = "derivation-source-mismatch",
    .name = "DerivationSourceMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor bytes differ from their source record",
    .explanation =
        "A tensor's bytes in the input checkpoint (size_bytes bytes read from source.record at "
        "source.offset_bytes) do not hash to the tensor's recorded sha256, or the range is outside the "
        "record: the output does not hold what the input's storage held.",
    .remediation = "Convert the checkpoint again with ckpt-convert; do not use the output.",
    .security = true,
};

}  // namespace ckpt::rules::derivation_source_mismatch
