// pickle-argument-invalid: Allowlisted pickle callable with invalid arguments.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_argument_invalid {

const RuleInfo kRule{
    .id = "pickle-argument-invalid",
    .name = "PickleArgumentInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Allowlisted pickle callable with invalid arguments",
    .explanation =
        "An allowlisted callable is safe only with the arguments torch.save gives it: OrderedDict "
        "takes pairs, never a string; a rebuilt tensor takes a storage reference, an offset, a "
        "size and a stride inside that storage, and empty backward hooks. Anything else is what "
        "published bypasses use.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_argument_invalid
