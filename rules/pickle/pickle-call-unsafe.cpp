// pickle-call-unsafe: Pickle calls something outside the allowlist.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_call_unsafe {

const RuleInfo kRule{
    .id = "pickle-call-unsafe",
    .name = "PickleCallUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle calls something outside the allowlist",
    .explanation =
        "REDUCE, NEWOBJ, INST and OBJ call a callable with arguments taken from the stream; the "
        "finding shows the call a load would make, e.g. posix.system('touch /tmp/x'). Loading the "
        "file runs it.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_call_unsafe
