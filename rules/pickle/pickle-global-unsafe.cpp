// pickle-global-unsafe: Pickle imports a global outside the allowlist.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_global_unsafe {

const RuleInfo kRule{
    .id = "pickle-global-unsafe",
    .name = "PickleGlobalUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle imports a global outside the allowlist",
    .explanation =
        "Unpickling imports every global the stream names (GLOBAL, STACK_GLOBAL, INST) and can "
        "call it: os.system, builtins.eval, or any gadget reachable by import. Only what "
        "torch.save writes and torch's weights-only unpickler accepts is allowed; everything "
        "else, including names the analysis cannot resolve and dunder attributes, is reported "
        "with the module and name a load would import.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_global_unsafe
