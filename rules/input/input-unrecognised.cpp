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
        "The input is, by its content, of none of the kinds the audit reads (the kinds --expect-kind "
        "names: Lensemble artifacts, model folders, safetensors, GGUF, ONNX, NumPy, Keras, HDF5, "
        "msgpack, NeMo and the pickle-based formats). Nothing about it can be verified. A model "
        "card or a configuration file given alone (a glob over a model's files) is the usual cause.",
    .remediation =
        "Give the audit the artifact, model file or model folder itself: a model at a "
        "repository's root is audited as '.', its card and configuration with it.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_unrecognised
