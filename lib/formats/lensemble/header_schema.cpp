#include "lib/formats/lensemble/header_schema.h"

#include <array>

namespace ckpt {
namespace {

constexpr std::array<std::string_view, 10> kV1Keys{"schema_version", "content_hash", "parent_hash",  "wmcp_version",
                                                   "round_index",    "config_hash",  "param_groups", "tensor_manifest",
                                                   "weight_files",   "created_at"};
constexpr std::array<std::string_view, 11> kV2Keys{"schema_version", "content_hash", "parent_hash",   "wmcp_version",
                                                   "round_index",    "config_hash",  "param_groups",  "tensor_manifest",
                                                   "weight_files",   "created_at",   "hash_algorithm"};

void MigrateV1ToV2(Header& header) { header.hash_algorithm = "sha256"; }

struct Migration {
  std::uint64_t from;
  void (*apply)(Header&);
};
constexpr std::array<Migration, 1> kMigrations{{{1, &MigrateV1ToV2}}};
static_assert(kMigrations.size() + 1 == kReaderMaxSchemaVersion, "one migration per version step");

}  // namespace

std::span<const std::string_view> HeaderKeys(std::uint64_t version) {
  if (version == 1) return kV1Keys;
  return kV2Keys;
}

void MigrateToLatest(Header& header) {
  std::uint64_t version = header.schema_version.value_or(kReaderMaxSchemaVersion);
  for (const Migration& step : kMigrations) {
    if (step.from == version) {
      step.apply(header);
      ++version;
    }
  }
  header.migrated_version = version;
}

}  // namespace ckpt
