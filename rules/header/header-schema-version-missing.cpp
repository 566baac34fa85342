// header-schema-version-missing: schema_version is missing.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_schema_version_missing {

const RuleInfo kRule{
    .id = "header-schema-version-missing",
    .name = "HeaderSchemaVersionMissing",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "schema_version is missing",
    .explanation =
        "schema_version is read before any other field to decide how to read the rest; "
        "without it the header cannot be interpreted.",
    .remediation = "Write schema_version as a JSON integer (currently 1 or 2).",
    .security = false,
};

}  // namespace ckpt::rules::header_schema_version_missing
