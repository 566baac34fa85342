// index-structure: weights.index.json is not {metadata: {total_size}, weight_map}.
// Detected while reading, by lib/formats/shard_index_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::index_structure {

const RuleInfo kRule{
    .id = "index-structure",
    .name = "IndexStructure",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weights.index.json is not {metadata: {total_size}, weight_map}",
    .explanation =
        "The index must be exactly {\"metadata\": {\"total_size\": T, ...}, \"weight_map\": "
        "{tensor: shard file}} with T a JSON integer and every shard file a string (the "
        "transformers layout).",
    .remediation = "Re-export the shard index in the transformers layout.",
    .security = false,
};

}  // namespace ckpt::rules::index_structure
