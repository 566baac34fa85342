// Sealed copies of the files an audit reads (verify-then-load.md section 1). Each file's bytes
// go into a memfd as the audit first reads them: the read that hashes also copies, so every byte
// is read from the original once. Every later read of the same bytes comes from the copy, so the
// structure the readers judged and the bytes the hash covered are one set of bytes. Once the
// audit is over the copy is sealed (no write, growth or shrinking, and no new seal): what a
// loader is handed from it is what the audit judged, whatever happens to the original path.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "lib/io/artifact_source.h"

namespace ckpt {

/// True where sealed memfds exist (Linux: memfd_create with MFD_ALLOW_SEALING).
bool SealedMemoryAvailable();

/// The memory a hold may take by default: the machine's available memory (MemAvailable),
/// at most 64 GiB.
std::uint64_t DefaultMaxHoldBytes();

/// One file's copy in a memfd, filled as its bytes are first read.
class HeldCopy {
 public:
  /// A sparse memfd of `size` bytes named after `name` (tmpfs allocates pages as they are written).
  static IoResult<std::shared_ptr<HeldCopy>> Create(const std::string& name, std::uint64_t size,
                                                    const FileIdentity& origin_identity);
  ~HeldCopy();
  HeldCopy(const HeldCopy&) = delete;
  HeldCopy& operator=(const HeldCopy&) = delete;

  /// Reads [offset, offset + out.size()): held bytes from the copy, the rest from `origin`,
  /// which are then held. Out of range is an error (as the original's read would be).
  IoResult<void> Read(const RandomAccessFile& origin, std::uint64_t offset, std::span<std::byte> out);
  /// Holds what is not held yet, reading the file front to back and handing every byte of it,
  /// in order, to `each` when given (a digest of exactly the held bytes).
  IoResult<void> Complete(const RandomAccessFile& origin,
                          const std::function<void(std::span<const std::byte>)>& each = nullptr);
  /// Every byte of the file is held.
  [[nodiscard]] bool complete() const;
  /// Seals the copy against writes, growth, shrinking and further seals; idempotent.
  IoResult<void> Seal();
  [[nodiscard]] bool sealed() const;
  /// The memfd (owned by the copy).
  [[nodiscard]] int descriptor() const { return memfd_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  /// The original file's identity when the copy was made.
  [[nodiscard]] const FileIdentity& origin_identity() const { return identity_; }

 private:
  HeldCopy(int memfd, std::uint64_t size, const FileIdentity& identity)
      : memfd_(memfd), size_(size), identity_(identity) {}
  IoResult<void> ReadLocked(const RandomAccessFile& origin, std::uint64_t offset, std::span<std::byte> out);
  void MarkHeld(std::uint64_t begin, std::uint64_t end);

  mutable std::mutex mutex_;
  int memfd_ = -1;
  std::uint64_t size_ = 0;
  FileIdentity identity_;
  std::map<std::uint64_t, std::uint64_t> held_;  ///< begin -> end: disjoint, merged ranges held
  bool sealed_ = false;
};

/// What a hold kept of each file an audit opened: its copy (memfd and lazy holds) and the
/// original it reads what is not held yet from.
struct HeldFile {
  std::shared_ptr<HeldCopy> copy;                  ///< null for a hold that keeps descriptors only
  std::shared_ptr<const RandomAccessFile> origin;  ///< the admitted original (the last opened)
};

/// A source that reads every file through its HeldCopy (copy = true) or only records the
/// originals the audit opened (copy = false: the `fd` hold). The files it held outlive it in
/// `registry()`, as does the source they came from.
class HoldingSource final : public ArtifactSource {
 public:
  struct Registry {
    std::shared_ptr<const ArtifactSource> inner;
    std::mutex mutex;
    std::map<std::string, HeldFile> files;
    std::uint64_t held_bytes = 0;  ///< the sizes of every copy made
  };

  HoldingSource(std::shared_ptr<const ArtifactSource> inner, bool copy, std::uint64_t max_hold_bytes);

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return registry_->inner->List(); }
  /// Opens the original and wraps it; a copy that would take the hold past its bound is an
  /// error (ENOMEM), and so is a name whose file is no longer the one first held (ESTALE).
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override {
    return registry_->inner->Stat(name);
  }
  [[nodiscard]] std::optional<ExpectedContent> Expected(const std::string& name) const override {
    return registry_->inner->Expected(name);
  }
  [[nodiscard]] const std::shared_ptr<Registry>& registry() const { return registry_; }

 private:
  std::shared_ptr<Registry> registry_;
  bool copy_;
  std::uint64_t max_hold_bytes_;
};

}  // namespace ckpt
