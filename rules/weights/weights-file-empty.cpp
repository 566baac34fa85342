// weights-file-empty: Weight file is empty.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_file_empty {

const RuleInfo kRule{
    .id = "weights-file-empty",
    .name = "WeightsFileEmpty",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is empty",
    .explanation = "The weight file has zero bytes: an interrupted copy or download.",
    .remediation = "safetensors only: re-export with safetensors, or copy the file again.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_file_empty
