// pickle-nested-loader: Pickle imports a nested loader.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_nested_loader {

const RuleInfo kRule{
    .id = "pickle-nested-loader",
    .name = "PickleNestedLoader",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle imports a nested loader",
    .explanation =
        "torch.load, pickle.loads, numpy.load and their kin unpickle bytes given to them at load "
        "time: the payload is hidden inside an argument, out of reach of any scanner that reads "
        "the outer stream only.",
    .remediation = "Do not load the file. Re-export the weights with safetensors from a trusted source.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_nested_loader
