// Length and SHA-256 of a file an audit read (SARIF `artifacts[]`). The engine computes the
// digests during the audit's own reads (AdmittedFile::sha256); report writers receive data
// and never touch the disk.
#pragma once

#include <cstdint>
#include <string>

namespace ckpt {

struct FileDigest {
  std::string path;  ///< artifact root + "/" + file name, as the reports name it
  std::uint64_t length = 0;
  std::string sha256;
};

}  // namespace ckpt
