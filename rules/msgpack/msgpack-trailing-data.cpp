// msgpack-trailing-data: bytes follow a msgpack file's one object.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackTrailingData.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_trailing_data {

const RuleInfo kRule{
    .id = "msgpack-trailing-data",
    .name = "MsgpackTrailingData",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bytes follow a msgpack file's one object",
    .explanation =
        "flax.serialization.from_bytes unpacks one object and rejects more (msgpack.unpackb raises ExtraData); a "
        "streaming unpacker reads them as a second object. Bytes no reader agrees on can carry a second model or a "
        "payload.",
    .remediation = "Cut the file at the end of its object, or write it again.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_trailing_data
