// weights-format-gguf: Weight file is GGUF.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_gguf {

const RuleInfo kRule{
    .id = "weights-format-gguf",
    .name = "WeightsFormatGguf",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is GGUF",
    .explanation = "The file is a GGUF model file, not safetensors.",
    .remediation = "safetensors only: re-export with safetensors.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_gguf
