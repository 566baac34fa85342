// msgpack-duplicate-key: a msgpack map holds a key twice.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackDuplicateKey.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_duplicate_key {

const RuleInfo kRule{
    .id = "msgpack-duplicate-key",
    .name = "MsgpackDuplicateKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A msgpack map holds a key twice",
    .explanation =
        "msgpack-python keeps the last value of a key and another reader the first, so the two load different "
        "parameters under one name.",
    .remediation =
        "Write the checkpoint again with flax.serialization.to_bytes (a Python dict cannot hold a key twice).",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_duplicate_key
