#include "lib/formats/layout_profile.h"

#include <tuple>

#include "lib/formats/format_table.h"
#include "lib/formats/layout.h"

namespace ckpt {
namespace {

// weights.safetensors, then shards by (count, index), then by name.
std::tuple<int, std::uint32_t, std::uint32_t, std::string_view> ShardOrder(std::string_view name) {
  if (auto shard = ParseShardName(name)) return {1, shard->count, shard->index, name};
  return {0, 0, 0, name};
}

bool LensembleWeightBefore(std::string_view a, std::string_view b) { return ShardOrder(a) < ShardOrder(b); }

Layout ClassifyLensemble(const std::vector<DirectoryEntry>& entries) {
  bool single = false;
  bool sharded = false;
  for (const DirectoryEntry& e : entries) {
    if (e.name == kSingleWeightsFileName) single = true;
    if (ParseShardName(e.name) || e.name == kShardIndexFileName) sharded = true;
  }
  if (single && sharded) return Layout::kMixed;
  if (single) return Layout::kSingle;
  if (sharded) return Layout::kSharded;
  return Layout::kNone;
}

bool AnyFile(std::string_view /*name*/) { return true; }
bool ByName(std::string_view a, std::string_view b) { return a < b; }
Layout SingleFile(const std::vector<DirectoryEntry>& /*entries*/) { return Layout::kSingle; }

Layout ClassifyModelFolder(const std::vector<DirectoryEntry>& entries) {
  std::size_t weights = 0;
  for (const DirectoryEntry& e : entries) weights += IsSafetensorsFileName(e.name) ? 1U : 0U;
  return weights == 0 ? Layout::kNone : weights == 1 ? Layout::kSingle : Layout::kSharded;
}

}  // namespace

const LayoutProfile kLensembleLayout{
    "lensemble-directory", kHeaderFileName,        kShardIndexFileName,
    &IsWeightFileName,     &LensembleWeightBefore, &ClassifyLensemble,
};
const LayoutProfile kSafetensorsFileLayout{"safetensors-file", "", "", &AnyFile, &ByName, &SingleFile};
const LayoutProfile kSingleFileLayout{"single-file", "", "", &AnyFile, &ByName, &SingleFile};
const LayoutProfile kModelFolderLayout{"model-folder", "", "", &IsSafetensorsFileName, &ByName, &ClassifyModelFolder};

// The Lensemble artifact as a directory (artifact-format.md section 1): named by its entries.
const InputFormat formats::kLensembleFormat{
    .kind = InputKind::kLensemble,
    .opening = InputOpening::kDirectory,
    .layout = &kLensembleLayout,
};

const LayoutProfile& SelectLayoutProfile(InputKind kind) { return *FormatOf(kind).layout; }

}  // namespace ckpt
