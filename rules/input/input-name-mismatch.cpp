// input-name-mismatch: File content differs from what its name claims.
// Detected while reading, by lib/load/input.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::input_name_mismatch {

const RuleInfo kRule{
    .id = "input-name-mismatch",
    .name = "InputNameMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "File content differs from what its name claims",
    .explanation =
        "A file named *.safetensors that is a pickle (or any non-safetensors content) fools tools "
        "that trust the extension: loaders pick a reader by content, scanners by name "
        "(CVE-2025-1889).",
    .remediation = "Rename the file for what it is, or re-export it with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_name_mismatch
