// Schema versions of header.json and the migration chain (artifact-format.md section 6).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "lib/model/artifact.h"

namespace ckpt {

/// Highest schema_version this reader understands.
inline constexpr std::uint64_t kReaderMaxSchemaVersion = 2;
/// header.json (and weights.index.json) size bound, checked before reading.
inline constexpr std::uint64_t kMaxJsonFileSize = 100'000'000;

/// The exact key set of a header of `version` as written (1 <= version <= max).
std::span<const std::string_view> HeaderKeys(std::uint64_t version);

/// Runs the migration chain on a header read at `header.schema_version` up to
/// kReaderMaxSchemaVersion (migrate_v1_to_v2 sets hash_algorithm to "sha256") and sets
/// `migrated_version`. The version as written stays in `schema_version` (it is hashed).
void MigrateToLatest(Header& header);

}  // namespace ckpt
