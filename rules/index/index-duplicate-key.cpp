// index-duplicate-key: Duplicate key in weights.index.json.
// Detected while reading, by lib/formats/shard_index_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::index_duplicate_key {

const RuleInfo kRule{
    .id = "index-duplicate-key",
    .name = "IndexDuplicateKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Duplicate key in weights.index.json",
    .explanation =
        "A tensor mapped twice (or a repeated metadata key) lets different readers "
        "resolve different shards.",
    .remediation = "Re-export the shard index with each key once.",
    .security = true,
};

}  // namespace ckpt::rules::index_duplicate_key
