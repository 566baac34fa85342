// header-unknown-field: Unknown field in header.json.
// Checked after reading, on the top-level keys the header reader records.
#include <algorithm>

#include "lib/formats/lensemble/header_schema.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_unknown_field {

const RuleInfo kRule{
    .id = "header-unknown-field",
    .name = "HeaderUnknownField",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Unknown field in header.json",
    .explanation =
        "The header forbids extra keys (extra=\"forbid\"): an unknown key is either a typo "
        "or data the hash does not protect. A field of a later schema version "
        "(hash_algorithm in a v1 header) is unknown too.",
    .remediation = "Remove the key, or raise schema_version if the field belongs to a newer version.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->schema_version) return;
  const auto keys = HeaderKeys(*h->schema_version);
  const std::string file = "header.json";
  h->ForEachTopLevelKey([&](std::string_view key, std::uint64_t offset) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return;
    sink.ReportWith(kRule, file, [&] {
      return std::pair(h->json.At(offset, "/" + json::EscapePointerToken(key)),
                       "header.json (schema_version " + std::to_string(*h->schema_version) + ") has unknown field " +
                           QuoteForMessage(key) + ".");
    });
  });
}

}  // namespace ckpt::rules::header_unknown_field
