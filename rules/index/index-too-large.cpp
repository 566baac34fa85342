// index-too-large: weights.index.json is larger than 100,000,000 bytes.
// Detected while reading, by lib/formats/shard_index_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::index_too_large {

const RuleInfo kRule{
    .id = "index-too-large",
    .name = "IndexTooLarge",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weights.index.json is larger than 100,000,000 bytes",
    .explanation = "The size of the index is bounded before it is read, like header.json's.",
    .remediation = "Re-export the sharded artifact.",
    .security = false,
};

}  // namespace ckpt::rules::index_too_large
