// header-duplicate-key: Duplicate key in header.json.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_duplicate_key {

const RuleInfo kRule{
    .id = "header-duplicate-key",
    .name = "HeaderDuplicateKey",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Duplicate key in header.json",
    .explanation =
        "JSON parsers disagree about which of two equal keys wins, so a duplicated field "
        "lets one reader see a different header than another: a classic way to slip a "
        "value past a check.",
    .remediation = "Remove the duplicate key; every field appears once.",
    .security = true,
};

}  // namespace ckpt::rules::header_duplicate_key
