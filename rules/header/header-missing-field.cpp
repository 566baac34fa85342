// header-missing-field: Required header field is missing.
// Checked after reading, on the top-level keys the header reader records.
#include <algorithm>

#include "lib/formats/lensemble/header_schema.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

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

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->schema_version) return;
  for (std::string_view key : HeaderKeys(*h->schema_version)) {
    if (h->HasTopLevelKey(key)) continue;
    sink.Report(kRule, h->json.At(h->json.doc.value_begin, ""),
                "header.json (schema_version " + std::to_string(*h->schema_version) + ") has no " + std::string(key) +
                    " field.");
  }
}

}  // namespace ckpt::rules::header_missing_field
