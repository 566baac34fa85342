// header-json-syntax: header.json is not valid JSON.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_json_syntax {

const RuleInfo kRule{
    .id = "header-json-syntax",
    .name = "HeaderJsonSyntax",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json is not valid JSON",
    .explanation =
        "The header does not parse as strict JSON (RFC 8259), or nests deeper than any "
        "header can, so none of its fields can be trusted.",
    .remediation =
        "Re-write header.json with the artifact writer; the finding gives the line and "
        "column of the first error.",
    .security = false,
};

}  // namespace ckpt::rules::header_json_syntax
