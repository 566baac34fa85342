// weights-format-pickle: Weight file is a Python pickle.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_pickle {

const RuleInfo kRule{
    .id = "weights-format-pickle",
    .name = "WeightsFormatPickle",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is a Python pickle",
    .explanation =
        "The file is not safetensors but a pickle stream. Loading a pickle can execute "
        "arbitrary code, which is why artifacts carry safetensors only. It is never "
        "unpickled here.",
    .remediation = "safetensors only: re-export with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_pickle
