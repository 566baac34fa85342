// msgpack-ext-type: a msgpack file holds an extension type Flax does not write.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackExtType.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_ext_type {

const RuleInfo kRule{
    .id = "msgpack-ext-type",
    .name = "MsgpackExtType",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A msgpack file holds an extension type Flax does not write",
    .explanation =
        "flax.serialization writes extension types 1 (ndarray), 2 (complex) and 3 (numpy scalar) only. Any other type "
        "(a timestamp, type -1, an application type) is read by an ext_hook the file cannot vouch for, and fails "
        "flax.serialization.from_bytes.",
    .remediation = "Write the checkpoint again with flax.serialization.to_bytes.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_ext_type
