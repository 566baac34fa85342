// convert-big-endian: Checkpoint data is not little-endian.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_big_endian {

const RuleInfo kRule{
    .id = "convert-big-endian",
    .name = "ConvertBigEndian",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Checkpoint data is not little-endian",
    .explanation =
        "The checkpoint's byteorder record says its tensor data is big-endian. safetensors stores "
        "little-endian bytes, and copying the records as they are would give every multi-byte value the "
        "wrong meaning.",
    .remediation =
        "Save the checkpoint on a little-endian machine (or with torch's byteorder little), then convert "
        "it.",
    .security = true,
};

}  // namespace ckpt::rules::convert_big_endian
