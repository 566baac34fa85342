// input-unrecognised: Input of no kind the audit recognises.
// Detected while reading, by lib/load/input.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::input_unrecognised {

const RuleInfo kRule{
    .id = "input-unrecognised",
    .name = "InputUnrecognised",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Input of no kind the audit recognises",
    .explanation =
        "The input is neither a Lensemble artifact (directory or tar), a safetensors file, a "
        "model folder, GGUF nor a pickle-based checkpoint, by its content. Nothing about it can "
        "be verified.",
    .remediation = "Give the audit the artifact, model file or model folder itself.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_unrecognised
