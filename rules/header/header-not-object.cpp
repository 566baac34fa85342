// header-not-object: header.json is not a JSON object.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_not_object {

const RuleInfo kRule{
    .id = "header-not-object",
    .name = "HeaderNotObject",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json is not a JSON object",
    .explanation = "A CheckpointHeader is a JSON object; any other top-level value is not a header.",
    .remediation = "Write the header as one JSON object.",
    .security = false,
};

}  // namespace ckpt::rules::header_not_object
