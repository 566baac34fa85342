// ArtifactSource held in memory: for tests and fuzz targets that must not touch the disk.
#pragma once

#include <map>
#include <set>
#include <string>

#include "lib/io/artifact_source.h"

namespace ckpt {

class MemorySource final : public ArtifactSource {
 public:
  /// Adds (or replaces) a regular file.
  void AddFile(std::string name, std::string bytes) { files_[std::move(name)] = std::move(bytes); }
  /// Adds a non-regular entry (directory, symlink, other) that cannot be opened.
  void AddEntry(std::string name, EntryKind kind) { others_[std::move(name)] = kind; }
  /// Simulates another file moved over `name` as soon as the audit has opened it: Stat()
  /// then reports a different inode (for tests of identity checks without races).
  void ReplaceOnOpen(std::string name) { replace_on_open_.insert(std::move(name)); }

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override;

 private:
  std::map<std::string, std::string> files_;
  std::map<std::string, EntryKind> others_;
  std::set<std::string> replace_on_open_;
  mutable std::set<std::string> replaced_;
};

}  // namespace ckpt
