// Moving a finished file or folder into place without ever replacing anything there
// (conversion.md): atomic, and failing with EEXIST when the destination exists by then,
// however late it appeared. The one tool that writes (ckpt-convert) writes each output as a
// NewFileBeside and places it so: the one atomic output writer of the tree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace ckpt {

/// Renames `from` to `to` unless `to` exists: renameat2(RENAME_NOREPLACE), or where the file
/// system lacks it, link(2) then unlink(2) for a file and an empty placeholder directory
/// replaced by rename(2) for a folder. Returns 0, or the errno (EEXIST: `to` was there).
int PlaceNew(const std::string& from, const std::string& to);

/// A new file beside `target` (same folder, a hidden temporary name, mode 0600 while written),
/// removed when destroyed unless Keep() has moved it into place with PlaceNew.
class NewFileBeside {
 public:
  explicit NewFileBeside(const std::filesystem::path& target);
  ~NewFileBeside();
  NewFileBeside(const NewFileBeside&) = delete;
  NewFileBeside& operator=(const NewFileBeside&) = delete;
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Gives the file the usual 0666 & ~umask, syncs it and moves it to the target, never onto
  /// anything there (false, errno set, when it cannot: EEXIST when the target appeared).
  bool Keep();

 private:
  std::filesystem::path target_;
  std::string path_;
  int fd_ = -1;
  bool kept_ = false;
};

/// Writes all of `bytes` at `offset` of `fd` (pwrite, EINTR retried); false on a failure.
bool WriteAll(int fd, std::uint64_t offset, std::span<const std::byte> bytes);

}  // namespace ckpt
