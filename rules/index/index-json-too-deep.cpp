// index-json-too-deep: weights.index.json nests deeper than 127 levels.
// Detected while reading, by lib/formats/shard_index_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::index_json_too_deep {

const RuleInfo kRule{
    .id = "index-json-too-deep",
    .name = "IndexJsonTooDeep",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weights.index.json nests deeper than 127 levels",
    .explanation =
        "Arrays and objects nested 128 levels or more are refused before anything else in the document is judged, as "
        "serde_json refuses them; free metadata may nest up to 127 levels.",
    .remediation = "Re-write weights.index.json with the artifact writer.",
    .security = true,
};

}  // namespace ckpt::rules::index_json_too_deep
