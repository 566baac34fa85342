// ArtifactSource over a directory on disk. Files are opened relative to the directory's
// descriptor with O_NOFOLLOW and checked to be regular, and read with pread. Each file
// records its identity (fstat on the open descriptor) when admitted; a released file is
// reopened by name on its next read and refused unless it is still the same file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"

namespace ckpt {

/// What fstat says of the open descriptor `fd` (the identity every local file is admitted
/// with); nullopt when fstat fails.
std::optional<FileIdentity> IdentityOfDescriptor(int fd);

class DirectorySource final : public ArtifactSource {
 public:
  /// Opens `path` as a directory (following a symlink given on the command line, as a user expects).
  [[nodiscard]] static IoResult<std::unique_ptr<DirectorySource>> OpenDirectory(const std::string& path);
  ~DirectorySource() override = default;
  DirectorySource(const DirectorySource&) = delete;
  DirectorySource& operator=(const DirectorySource&) = delete;

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override;

  /// The names of the regular files in the directory, sorted, from the directory listing's
  /// own types (a stat only where the file system gives none): what a lone file's context
  /// needs, without a stat of every sibling.
  [[nodiscard]] IoResult<std::vector<std::string>> RegularFileNames() const;
  /// What fstat says of the directory itself (its times change when an entry is added,
  /// removed or renamed).
  [[nodiscard]] IoResult<FileIdentity> Identity() const;

  /// Leaves the entries `names` out of List() and RegularFileNames(): a run's own reports,
  /// written into the folder it audits.
  void Hide(std::vector<std::string> names);

  /// The sub-directory `name` (one component, not a symlink) as a source of its own.
  [[nodiscard]] IoResult<std::unique_ptr<DirectorySource>> OpenSubdirectory(const std::string& name) const;
  /// The target text of the symlink `name` (at most 4096 bytes).
  [[nodiscard]] IoResult<std::string> ReadLink(const std::string& name) const;

  /// Files opened or reopened by any DirectorySource in this process (open(2) calls on
  /// files): how tests show that each file is opened once.
  static std::uint64_t FileOpenCount();
  /// Bytes read from files by any DirectorySource in this process: how tests show that
  /// each byte is read once.
  static std::uint64_t BytesRead();

  /// The directory's descriptor, shared by the files opened from it (they outlive the source).
  struct DirHandle {
    int fd = -1;
    ~DirHandle();
  };

 private:
  explicit DirectorySource(std::shared_ptr<const DirHandle> dir) : dir_(std::move(dir)) {}
  std::shared_ptr<const DirHandle> dir_;
  std::vector<std::string> hidden_;  // sorted
};

}  // namespace ckpt
