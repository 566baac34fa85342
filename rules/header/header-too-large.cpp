// header-too-large: header.json is larger than 100,000,000 bytes.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_too_large {

const RuleInfo kRule{
    .id = "header-too-large",
    .name = "HeaderTooLarge",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json is larger than 100,000,000 bytes",
    .explanation =
        "The size is checked before reading so that a hostile header cannot exhaust "
        "memory; no valid header comes near the bound.",
    .remediation = "Check what wrote the file: a header this large is not a CheckpointHeader.",
    .security = false,
};

}  // namespace ckpt::rules::header_too_large
