// The layout seam: which names of an input are the header, the shard index and the weight
// files, in which order weight files are read, and how the layout is classified. A profile
// is chosen per input (SelectLayoutProfile); today there is one, the Lensemble artifact
// directory (artifact-format.md section 1). Tar artifacts and model folders add theirs.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "lib/artifact/artifact.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

struct LayoutProfile {
  std::string_view name;         ///< "lensemble-directory"
  std::string_view header_file;  ///< read first, as the artifact's header
  std::string_view index_file;   ///< the shard index, when sharded
  bool (*is_weight_file)(std::string_view name);
  /// Strict weak order of weight files: the order they are read and reported in.
  bool (*weight_file_before)(std::string_view a, std::string_view b);
  Layout (*classify)(const std::vector<DirectoryEntry>& entries);
};

/// The profile for an input with these entries.
const LayoutProfile& SelectLayoutProfile(const std::vector<DirectoryEntry>& entries);

}  // namespace ckpt
