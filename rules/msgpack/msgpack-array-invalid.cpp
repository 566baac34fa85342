// msgpack-array-invalid: a Flax msgpack array is malformed.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackArrayInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_array_invalid {

const RuleInfo kRule{
    .id = "msgpack-array-invalid",
    .name = "MsgpackArrayInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Flax msgpack array is malformed",
    .explanation =
        "flax.serialization writes each array as msgpack ext type 1 (or 3 for a scalar) holding [shape, dtype name, "
        "bytes], with exactly numel x itemsize bytes, and arrays above 2^30 bytes as a chunked dict whose chunks add "
        "up to the shape. Anything else fails flax.serialization.from_bytes, or reads as an array no writer produced.",
    .remediation = "Write the checkpoint again with flax.serialization.to_bytes, or convert it to safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_array_invalid
