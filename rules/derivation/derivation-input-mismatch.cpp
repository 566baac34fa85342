// derivation-input-mismatch: Input checkpoint is not the one recorded.
// Reported while verifying signed statements, by lib/attest/derivation.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::derivation_input_mismatch {

const RuleInfo kRule{
    .id = "derivation-input-mismatch",
    .name = "DerivationInputMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Input checkpoint is not the one recorded",
    .explanation =
        "The derivation record names its input by SHA-256, and the checkpoint given with --derived-from "
        "hashes to something else, or its records cannot be read: the output was not made from this "
        "file.",
    .remediation = "Give the checkpoint the conversion read, or convert the file you have again.",
    .security = true,
};

}  // namespace ckpt::rules::derivation_input_mismatch
