// msgpack-budget-exceeded: a msgpack file holds more objects, or longer strings, than the reader allows.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackBudgetExceeded.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_budget_exceeded {

const RuleInfo kRule{
    .id = "msgpack-budget-exceeded",
    .name = "MsgpackBudgetExceeded",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A msgpack file holds more objects, or longer strings, than the reader allows",
    .explanation =
        "A checkpoint of a few million values needs no more than 2^21 msgpack objects, and no key or string needs more "
        "than 1 MiB. Past those bounds the file is read no further: its size is an attack on the reader's memory, not "
        "a model.",
    .remediation = "Split the checkpoint, or store it as safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_budget_exceeded
