// Where artifact bytes come from. Readers see only this interface, so tests and fuzz
// targets run on memory and nothing outside the artifact root can ever be opened.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <boost/system/result.hpp>

namespace ckpt {

template <class T>
using IoResult = boost::system::result<T>;

enum class EntryKind { kRegular, kDirectory, kSymlink, kOther };

struct DirectoryEntry {
  std::string name;  ///< exactly as stored (may hold any bytes but '/' and NUL)
  EntryKind kind = EntryKind::kOther;
  std::uint64_t size = 0;  ///< regular files only
};

/// A file opened for random-access reads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// Reads exactly out.size() bytes at `offset`; an error when the file is shorter or the read fails.
  [[nodiscard]] virtual IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const = 0;
};

class ArtifactSource {
 public:
  virtual ~ArtifactSource() = default;
  /// The top-level entries of the artifact, sorted by name bytes.
  [[nodiscard]] virtual IoResult<std::vector<DirectoryEntry>> List() const = 0;
  /// Opens a regular file that List() returned. Refuses symlinks and non-regular files.
  [[nodiscard]] virtual IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const = 0;
};

/// Reads a whole small file (callers bound the size first).
[[nodiscard]] IoResult<std::string> ReadAll(const RandomAccessFile& file);

}  // namespace ckpt
