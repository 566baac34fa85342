// header-json-too-deep: header.json nests deeper than 127 levels.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_json_too_deep {

const RuleInfo kRule{
    .id = "header-json-too-deep",
    .name = "HeaderJsonTooDeep",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json nests deeper than 127 levels",
    .explanation =
        "Arrays and objects nested 128 levels or more are refused before anything else in the document is judged, as "
        "serde_json (which the reference safetensors reader uses) refuses them; no header needs such depth, and deep "
        "nesting is how parsers are exhausted.",
    .remediation = "Re-write header.json with the artifact writer.",
    .security = true,
};

}  // namespace ckpt::rules::header_json_too_deep
