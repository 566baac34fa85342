// pickle-extension-code: Pickle imports by extension code.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_extension_code {

const RuleInfo kRule{
    .id = "pickle-extension-code",
    .name = "PickleExtensionCode",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle imports by extension code",
    .explanation =
        "EXT1, EXT2 and EXT4 import whatever copyreg's extension registry maps the code to at "
        "load time; the analysis cannot name it, so it fails closed.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_extension_code
