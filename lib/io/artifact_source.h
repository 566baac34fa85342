// Where artifact bytes come from. Readers see only this interface, so tests and fuzz
// targets run on memory and nothing outside the artifact root can ever be opened.
#pragma once

#include <boost/system/result.hpp>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/core/text_buffer.h"

namespace ckpt {

template <class T>
using IoResult = boost::system::result<T>;

enum class EntryKind { kRegular, kDirectory, kSymlink, kOther };

struct DirectoryEntry {
  std::string name;  ///< exactly as stored (may hold any bytes but '/' and NUL)
  EntryKind kind = EntryKind::kOther;
  std::uint64_t size = 0;   ///< regular files only
  std::uint64_t links = 1;  ///< hard links of a regular file (st_nlink; 1 where a source cannot tell)
};

/// What a file was when the audit admitted it. A verdict is bound to these values: a file
/// whose identity differs after the last read changed while being audited.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  /// A remote file's validators (remote.md section 5): its strong ETag, else Last-Modified.
  std::string etag;
  std::string last_modified;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

/// "its size", "its modification time", "its inode (replaced)": what differs, for messages.
std::string DescribeIdentityChange(const FileIdentity& before, const FileIdentity& after);

/// A read failed because the file is no longer the one admitted (it was replaced, or
/// changed size or times): the audit reports a finding, not a tool error.
inline constexpr int kFileChangedErrno = ESTALE;

/// A byte range a reader is about to read, in any order (PlanReads).
struct PlannedRead {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

/// A file opened for random-access reads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// Reads exactly out.size() bytes at `offset`; an error when the file is shorter or the
  /// read fails (kFileChangedErrno when it is no longer the admitted file).
  [[nodiscard]] virtual IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const = 0;
  /// The identity recorded when the file was opened.
  [[nodiscard]] virtual FileIdentity identity() const = 0;
  /// Closes the descriptor until the next read, which reopens the same name and refuses
  /// it unless its identity is unchanged: keeps open files bounded on any shard count.
  virtual void Release() const {}
  /// [offset, offset + length) is about to be read front to back, on one thread: a remote
  /// file streams it ahead of the reads.
  virtual void ExpectSequentialRead(std::uint64_t offset, std::uint64_t length) const {
    (void)offset;
    (void)length;
  }
  /// The small reads a reader is about to make (a zip's local headers): a remote file fetches
  /// the ones lying close together in one request each. Only a hint: any read may still come.
  virtual void PlanReads(std::span<const PlannedRead> reads) const { (void)reads; }
  /// True when every read is a network request: read on one thread, ahead of the work.
  [[nodiscard]] virtual bool ReadsAreRequests() const { return false; }
  /// A new read-only descriptor (close-on-exec) of the admitted file, whose whole content is
  /// this file's, for a helper process to read it itself (formats.md section 6); -1 when the
  /// file is not one local file (a window, a remote file, memory) or no longer the admitted one.
  [[nodiscard]] virtual int DuplicateDescriptor() const { return -1; }
};

/// What a file's content must be, when the source knows (a Hub listing: its size and its
/// LFS SHA-256 or git blob SHA-1).
struct ExpectedContent {
  std::optional<std::uint64_t> size;
  std::optional<std::string> digest;         ///< 64 hex: SHA-256; 40 hex: git blob SHA-1
  std::string described_as;                  ///< "the LFS object", "the git blob"
  std::optional<std::uint64_t> linked_size;  ///< a size the server claimed otherwise (X-Linked-Size)
};

class ArtifactSource {
 public:
  virtual ~ArtifactSource() = default;
  /// The top-level entries of the artifact, sorted by name bytes.
  [[nodiscard]] virtual IoResult<std::vector<DirectoryEntry>> List() const = 0;
  /// Opens a regular file that List() returned. Refuses symlinks and non-regular files.
  [[nodiscard]] virtual IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const = 0;
  /// What `name` resolves to now (not following a symlink): to check after the last read
  /// that the name still names the admitted file.
  [[nodiscard]] virtual IoResult<FileIdentity> Stat(const std::string& name) const = 0;
  /// What `name`'s content must be, when the source says (nullopt: nothing is claimed).
  [[nodiscard]] virtual std::optional<ExpectedContent> Expected(const std::string& name) const {
    (void)name;
    return std::nullopt;
  }
};

/// Reads a whole small file (callers bound the size first).
[[nodiscard]] IoResult<std::string> ReadAll(const RandomAccessFile& file);
/// The same bytes in a TextBuffer: for a file a parser keeps whole (a large one costs no fault a page).
[[nodiscard]] IoResult<TextBuffer> ReadWhole(const RandomAccessFile& file);

}  // namespace ckpt
