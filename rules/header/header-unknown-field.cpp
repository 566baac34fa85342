// header-unknown-field: Unknown field in header.json.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

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

}  // namespace ckpt::rules::header_unknown_field
