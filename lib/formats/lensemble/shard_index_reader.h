// weights.index.json reader: exactly {"metadata": {"total_size": T, ...}, "weight_map":
// {tensor: shard file}} (transformers layout), size bounded before reading, duplicate keys
// refused. Cross-checks against the shards are rules in rules/index/.
#pragma once

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

[[nodiscard]] IoResult<ShardIndex> ReadShardIndex(const RandomAccessFile& file, DiagnosticSink& sink);

}  // namespace ckpt
