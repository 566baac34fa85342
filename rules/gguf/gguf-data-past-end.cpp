// gguf-data-past-end: GGUF tensor data past the end of the file.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_data_past_end {

const RuleInfo kRule{
    .id = "gguf-data-past-end",
    .name = "GgufDataPastEnd",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF tensor data past the end of the file",
    .explanation =
        "A tensor's bytes run past the end of the file: the file is truncated, or a reader that "
        "does not check reads past it.",
    .remediation = "Download or convert the file again.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_data_past_end
