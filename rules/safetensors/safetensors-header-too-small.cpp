// safetensors-header-too-small: Weight file too small for a safetensors header.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_header_too_small {

const RuleInfo kRule{
    .id = "safetensors-header-too-small",
    .name = "SafetensorsHeaderTooSmall",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file too small for a safetensors header",
    .explanation =
        "A safetensors file starts with an 8-byte little-endian header length N followed "
        "by N >= 2 bytes of JSON; a shorter file or N < 2 is truncated or not "
        "safetensors.",
    .remediation = "Re-download or re-export the weight file.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_header_too_small
