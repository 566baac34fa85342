// Length and SHA-256 of every file an audit read (SARIF `artifacts[]`). Computed here, in
// the library, so report writers receive data and never touch the disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct FileDigest {
  std::string path;  ///< artifact root + "/" + file name, as the reports name it
  std::uint64_t length = 0;
  std::string sha256;
};

/// The layout files (header.json, weight files, weights.index.json) of each artifact
/// directory, read through the same confinement as the audit (no symlinks, regular files
/// only). Unreadable files are left out: the audit already reported them.
std::vector<FileDigest> DigestArtifactFiles(const std::vector<std::string>& artifact_paths);

}  // namespace ckpt
