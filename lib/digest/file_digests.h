// Length and SHA-256 of a file an audit read (SARIF `artifacts[]`). The engine computes the
// digests during the audit's own reads (AdmittedFile::sha256); report writers receive data
// and never touch the disk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ckpt {

struct FileDigest {
  std::string path;  ///< artifact root + "/" + file name, as the reports name it
  std::uint64_t length = 0;
  std::string sha256;  ///< empty for a container listed only as the parent of its files
  /// The file that holds this one (a tar for its members, a hub-cache repository folder
  /// for its snapshot files): SARIF's parentIndex.
  std::optional<std::string> container;
  /// The name inside the container, when the file exists only there (a tar member).
  std::optional<std::string> member;
};

}  // namespace ckpt
