// Finds artifacts: each path is an artifact (a directory holding header.json, or a file
// that is a tar, by content) or a folder searched recursively for them. Symlinks are never followed while searching,
// and an artifact directory is not searched further (its sub-folders are its own findings).
#pragma once

#include <string>
#include <vector>

namespace ckpt {

struct Discovery {
  std::vector<std::string> artifacts;  ///< sorted, each real directory once
  std::vector<std::string> errors;     ///< paths that do not exist or cannot be read: exit 2
};

Discovery DiscoverArtifacts(const std::vector<std::string>& roots);

}  // namespace ckpt
