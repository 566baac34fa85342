// header-not-utf8: header.json is not valid UTF-8.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_not_utf8 {

const RuleInfo kRule{
    .id = "header-not-utf8",
    .name = "HeaderNotUtf8",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json is not valid UTF-8",
    .explanation =
        "The header must be UTF-8 JSON; invalid bytes mean the file is corrupt or is not "
        "a header at all.",
    .remediation = "Re-write header.json with the artifact writer (UTF-8, no BOM).",
    .security = false,
};

}  // namespace ckpt::rules::header_not_utf8
