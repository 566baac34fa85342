// index-json-invalid: weights.index.json is not valid JSON.
// Detected while reading, by lib/formats/shard_index_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::index_json_invalid {

const RuleInfo kRule{
    .id = "index-json-invalid",
    .name = "IndexJsonInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weights.index.json is not valid JSON",
    .explanation = "The shard index is not valid UTF-8 JSON, or not a JSON object.",
    .remediation = "Re-export the sharded artifact.",
    .security = false,
};

}  // namespace ckpt::rules::index_json_invalid
