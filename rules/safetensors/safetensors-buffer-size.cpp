// safetensors-buffer-size: Data buffer does not end at end of file.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_buffer_size {

const RuleInfo kRule{
    .id = "safetensors-buffer-size",
    .name = "SafetensorsBufferSize",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Data buffer does not end at end of file",
    .explanation =
        "The last tensor must end exactly at the end of the file: bytes after it are "
        "unverified data, and a shorter file is truncated.",
    .remediation = "Re-download or re-export the weight file.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_buffer_size
