// pickle-build-unsafe: Pickle BUILD on an object that does not take state.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_build_unsafe {

const RuleInfo kRule{
    .id = "pickle-build-unsafe",
    .name = "PickleBuildUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle BUILD on an object that does not take state",
    .explanation =
        "BUILD calls an object's __setstate__ or sets its attributes from the stream. torch.save "
        "uses it only to give a state dict its _metadata and a Parameter its (empty) state; any "
        "other BUILD runs or shapes code.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_build_unsafe
