// ArtifactSource held in memory: for tests and fuzz targets that must not touch the disk.
#pragma once

#include <map>
#include <string>

#include "lib/io/artifact_source.h"

namespace ckpt {

class MemorySource final : public ArtifactSource {
 public:
  /// Adds (or replaces) a regular file.
  void AddFile(std::string name, std::string bytes) { files_[std::move(name)] = std::move(bytes); }
  /// Adds a non-regular entry (directory, symlink, other) that cannot be opened.
  void AddEntry(std::string name, EntryKind kind) { others_[std::move(name)] = kind; }

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;

 private:
  std::map<std::string, std::string> files_;
  std::map<std::string, EntryKind> others_;
};

}  // namespace ckpt
