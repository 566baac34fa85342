// ArtifactSource over a directory on disk. Files are opened relative to the directory's
// descriptor with O_NOFOLLOW and checked to be regular, and read with pread.
#pragma once

#include <string>

#include "lib/io/artifact_source.h"

namespace ckpt {

class DirectorySource final : public ArtifactSource {
 public:
  /// Opens `path` as a directory (following a symlink given on the command line, as a user expects).
  [[nodiscard]] static IoResult<std::unique_ptr<DirectorySource>> OpenDirectory(const std::string& path);
  ~DirectorySource() override;
  DirectorySource(const DirectorySource&) = delete;
  DirectorySource& operator=(const DirectorySource&) = delete;

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;

 private:
  explicit DirectorySource(int dir_fd) : dir_fd_(dir_fd) {}
  int dir_fd_;
};

}  // namespace ckpt
