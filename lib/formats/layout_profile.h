// The layout seam: which names of an input are the header, the shard index and the weight
// files, in which order weight files are read, and how the layout is classified. A profile
// is chosen per input kind (SelectLayoutProfile): the Lensemble artifact (artifact-format.md
// section 1, a directory or the members of a tar), a plain safetensors file, a model folder.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"

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

/// The layouts of the format table's entries: a Lensemble artifact (directory or tar), a plain
/// safetensors file (its one file is the weights), the one file of a pickle-based or GGUF
/// input, a model folder (every `*.safetensors` file is weights).
extern const LayoutProfile kLensembleLayout;
extern const LayoutProfile kSafetensorsFileLayout;
extern const LayoutProfile kSingleFileLayout;
extern const LayoutProfile kModelFolderLayout;

/// The profile for an input of this kind (its format table entry's): the Lensemble artifact (directory or tar), a
/// plain safetensors file (its one file is the weights), or a model folder (every
/// `*.safetensors` file is weights; indexes are read by the model-folder loader).
const LayoutProfile& SelectLayoutProfile(InputKind kind);

}  // namespace ckpt
