// gguf-length-invalid: GGUF count or length past the end of the file.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_length_invalid {

const RuleInfo kRule{
    .id = "gguf-length-invalid",
    .name = "GgufLengthInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF count or length past the end of the file",
    .explanation =
        "Tensor and key/value counts, string lengths and array counts are checked against the "
        "bytes left before anything is allocated (13 bytes per key/value, 32 per tensor info, the "
        "element size per array element). A count past them is a truncated or hostile file: "
        "lenient readers allocate for it or read past the end.",
    .remediation = "Download or convert the file again; a hostile count means the file must not be used.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::gguf_length_invalid
