// header-missing-field: Required header field is missing.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_missing_field {

const RuleInfo kRule{
    .id = "header-missing-field",
    .name = "HeaderMissingField",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Required header field is missing",
    .explanation =
        "Every field of the schema version as written is required (parent_hash may be "
        "null but must be present).",
    .remediation = "Add the field with a valid value; regenerate the header with the writer.",
    .security = false,
};

}  // namespace ckpt::rules::header_missing_field
