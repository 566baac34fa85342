#include "lib/formats/layout_profile.h"

#include <tuple>

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

const LayoutProfile kLensembleDirectory{
    "lensemble-directory", kHeaderFileName,        kShardIndexFileName,
    &IsWeightFileName,     &LensembleWeightBefore, &ClassifyLensemble,
};

bool AnyFile(std::string_view /*name*/) { return true; }
bool ByName(std::string_view a, std::string_view b) { return a < b; }
Layout SingleFile(const std::vector<DirectoryEntry>& /*entries*/) { return Layout::kSingle; }

const LayoutProfile kSafetensorsFile{"safetensors-file", "", "", &AnyFile, &ByName, &SingleFile};
// The one file of a pickle-based or GGUF input.
const LayoutProfile kPickleFile{"single-file", "", "", &AnyFile, &ByName, &SingleFile};

Layout ClassifyModelFolder(const std::vector<DirectoryEntry>& entries) {
  std::size_t weights = 0;
  for (const DirectoryEntry& e : entries) weights += IsSafetensorsFileName(e.name) ? 1U : 0U;
  return weights == 0 ? Layout::kNone : weights == 1 ? Layout::kSingle : Layout::kSharded;
}

const LayoutProfile kModelFolder{"model-folder", "", "", &IsSafetensorsFileName, &ByName, &ClassifyModelFolder};

}  // namespace

const LayoutProfile& SelectLayoutProfile(InputKind kind) {
  switch (kind) {
    case InputKind::kSafetensors:
      return kSafetensorsFile;
    case InputKind::kModelFolder:
      return kModelFolder;
    case InputKind::kTorchZip:
    case InputKind::kTorchLegacy:
    case InputKind::kPickle:
    case InputKind::kNumpy:
    case InputKind::kGguf:
      return kPickleFile;
    default:
      return kLensembleDirectory;
  }
}

}  // namespace ckpt
