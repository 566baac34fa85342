// header-field-type: Header field has the wrong JSON type.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_field_type {

const RuleInfo kRule{
    .id = "header-field-type",
    .name = "HeaderFieldType",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Header field has the wrong JSON type",
    .explanation =
        "Each field has one JSON type (integers must be plain JSON integers: 1.0, 1e0 and"
        " -0 are not). A field of the wrong type cannot be validated or hashed.",
    .remediation = "Write the field with the type the spec gives (artifact-format.md section 2).",
    .security = false,
};

}  // namespace ckpt::rules::header_field_type
