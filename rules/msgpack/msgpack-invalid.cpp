// msgpack-invalid: a msgpack file is malformed.
// Detected while reading: lib/formats/msgpack reports Diag::kMsgpackInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::msgpack_invalid {

const RuleInfo kRule{
    .id = "msgpack-invalid",
    .name = "MsgpackInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A msgpack file is malformed",
    .explanation =
        "The file is not one well-formed msgpack object with str map keys and UTF-8 strings: a truncated value, the "
        "never-used byte 0xc1, a non-str map key or invalid UTF-8. Readers disagree on such bytes, or fail on them.",
    .remediation = "Write the checkpoint again with flax.serialization.to_bytes, or convert it to safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::msgpack_invalid
