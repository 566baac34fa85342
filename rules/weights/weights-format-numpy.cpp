// weights-format-numpy: Weight file is a NumPy .npy array.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_numpy {

const RuleInfo kRule{
    .id = "weights-format-numpy",
    .name = "WeightsFormatNumpy",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is a NumPy .npy array",
    .explanation =
        "The file is a NumPy array file, not safetensors (and .npy object arrays can hold"
        " pickles).",
    .remediation = "safetensors only: re-export with safetensors.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_numpy
