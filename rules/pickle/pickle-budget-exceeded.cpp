// pickle-budget-exceeded: Pickle analysis budget exceeded.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_budget_exceeded {

const RuleInfo kRule{
    .id = "pickle-budget-exceeded",
    .name = "PickleBudgetExceeded",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle analysis budget exceeded",
    .explanation =
        "Per file, the budgets scale with the pickle's size P: at most max(2^21, 4P) values (pushes, "
        "DUP, GET and memo copies, and the (path, value) pairs visited while listing tensors), "
        "max(64 MiB, 2P) bytes of strings, max(2^24, P) opcodes and max(64 MiB, 8P) bytes of tensor "
        "names. A stream past these is an expansion attack or not a checkpoint; nothing after the "
        "point reached is trusted.",
    .remediation = "Do not load the file. Re-export the weights with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_budget_exceeded
