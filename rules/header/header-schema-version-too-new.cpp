// header-schema-version-too-new: header.json is newer than this reader.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_schema_version_too_new {

const RuleInfo kRule{
    .id = "header-schema-version-too-new",
    .name = "HeaderSchemaVersionTooNew",
    .code = Code::kSchemaVersionMismatch,
    .severity = Severity::kError,
    .title = "header.json is newer than this reader",
    .explanation =
        "The header declares a schema version above the highest this reader knows; its "
        "fields may mean something this reader does not understand, so nothing else is "
        "checked.",
    .remediation = "Upgrade ckpt-audit to a release that reads this schema version.",
    .security = false,
};

}  // namespace ckpt::rules::header_schema_version_too_new
