// msgpack-depth-exceeded: a msgpack file nests deeper than 128 levels.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackDepthExceeded.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_depth_exceeded {

const RuleInfo kRule{
    .id = "msgpack-depth-exceeded",
    .name = "MsgpackDepthExceeded",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A msgpack file nests deeper than 128 levels",
    .explanation =
        "A Flax state dict nests a few levels deep. msgpack-python's unpacker and recursive readers overflow their "
        "stack on deep nesting (a million levels fit in a few megabytes); the audit stops at 128 levels.",
    .remediation = "Write the state dict again with flax.serialization.to_bytes.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_depth_exceeded
