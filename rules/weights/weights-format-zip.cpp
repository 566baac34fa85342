// weights-format-zip: Weight file is a zip archive (torch.save).
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_zip {

const RuleInfo kRule{
    .id = "weights-format-zip",
    .name = "WeightsFormatZip",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is a zip archive (torch.save)",
    .explanation =
        "The file is a zip archive, as torch.save writes; such archives hold pickles that"
        " can execute code when loaded.",
    .remediation = "safetensors only: re-export with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_zip
