// safetensors-noncanonical-whitespace: safetensors header has non-canonical whitespace.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_noncanonical_whitespace {

const RuleInfo kRule{
    .id = "safetensors-noncanonical-whitespace",
    .name = "SafetensorsNoncanonicalWhitespace",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "safetensors header has non-canonical whitespace",
    .explanation =
        "The header has JSON whitespace before '{' or trailing padding other than spaces."
        " The reference reader accepts it, so it is not corruption, but canonical writers"
        " pad with trailing spaces only.",
    .remediation = "Re-export with a current safetensors writer to get a canonical header.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_noncanonical_whitespace
