// derivation-tensor-mismatch: Output tensors differ from the record.
// Reported while verifying signed statements, by lib/attest/derivation.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::derivation_tensor_mismatch {

const RuleInfo kRule{
    .id = "derivation-tensor-mismatch",
    .name = "DerivationTensorMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Output tensors differ from the record",
    .explanation =
        "The output's tensor set (name, dtype, shape) differs from the record's tensors, or a tensor's "
        "bytes do not hash to its recorded sha256, or the output is not a readable safetensors file: the "
        "file is not the one the record describes.",
    .remediation = "Use the output the conversion wrote, or convert again and sign a new record.",
    .security = true,
};

}  // namespace ckpt::rules::derivation_tensor_mismatch
