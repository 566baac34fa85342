// header-schema-version-invalid: schema_version is not a JSON integer >= 1.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_schema_version_invalid {

const RuleInfo kRule{
    .id = "header-schema-version-invalid",
    .name = "HeaderSchemaVersionInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "schema_version is not a JSON integer >= 1",
    .explanation =
        "schema_version must be a plain JSON integer (no fraction, exponent or sign) of "
        "at least 1.",
    .remediation = "Write schema_version as a JSON integer such as 2.",
    .security = false,
};

}  // namespace ckpt::rules::header_schema_version_invalid
