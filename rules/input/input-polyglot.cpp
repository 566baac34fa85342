// input-polyglot: A file that is two containers at once.
// Detected while reading, by lib/formats/polyglot.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::input_polyglot {

const RuleInfo kRule{
    .id = "input-polyglot",
    .name = "InputPolyglot",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "File is two containers at once (a polyglot)",
    .explanation =
        "Loaders choose a reader by the first bytes or by the file name, and some read from the "
        "end: a safetensors file that also starts with a zip's local header, or whose last bytes "
        "are a complete zip directory, is one model to the audit and another to torch.load, "
        "numpy.load or zipfile (which may run its pickle). A file with two complete readings has "
        "no one meaning, so it is refused whatever the first reading holds.",
    .remediation =
        "Re-export the model in one format (safetensors), and find out who produced a file "
        "built to be read two ways.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_polyglot
