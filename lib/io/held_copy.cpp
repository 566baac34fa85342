#include "lib/io/held_copy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

namespace ckpt {
namespace {

boost::system::error_code Error(int code) { return {code, boost::system::system_category()}; }

constexpr std::uint64_t kCompleteChunk = std::uint64_t{1} << 20;

IoResult<void> PreadAll(int fd, std::uint64_t offset, std::span<std::byte> out) {
  while (!out.empty()) {
    const ssize_t got = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Error(errno);
    if (got == 0) return Error(EIO);  // a sealed copy never shrinks: a short read is a bug
    out = out.subspan(static_cast<std::size_t>(got));
    offset += static_cast<std::uint64_t>(got);
  }
  return {};
}

IoResult<void> PwriteAll(int fd, std::uint64_t offset, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t put = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return Error(put < 0 ? errno : EIO);  // ENOSPC, ENOMEM: tmpfs is full
    bytes = bytes.subspan(static_cast<std::size_t>(put));
    offset += static_cast<std::uint64_t>(put);
  }
  return {};
}

// A read through the hold: the original's read, with the copy in between.
class HeldRead final : public RandomAccessFile {
 public:
  HeldRead(std::shared_ptr<HeldCopy> copy, std::shared_ptr<const RandomAccessFile> origin)
      : copy_(std::move(copy)), origin_(std::move(origin)) {}
  [[nodiscard]] std::uint64_t size() const override { return origin_->size(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    return copy_ ? copy_->Read(*origin_, offset, out) : origin_->ReadAt(offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override { return origin_->identity(); }
  void Release() const override { origin_->Release(); }
  void ExpectSequentialRead(std::uint64_t offset, std::uint64_t length) const override {
    origin_->ExpectSequentialRead(offset, length);
  }
  [[nodiscard]] bool ReadsAreRequests() const override { return origin_->ReadsAreRequests(); }
  // A helper process (the HDF5 reader) reads the whole file itself: it gets the copy, made
  // whole first, through a read-only descriptor of its own.
  [[nodiscard]] int DuplicateDescriptor() const override {
    if (!copy_) return origin_->DuplicateDescriptor();
    if (!copy_->Complete(*origin_)) return -1;
    const std::string proc = "/proc/self/fd/" + std::to_string(copy_->descriptor());
    return ::open(proc.c_str(), O_RDONLY | O_CLOEXEC);
  }

 private:
  std::shared_ptr<HeldCopy> copy_;
  std::shared_ptr<const RandomAccessFile> origin_;
};

}  // namespace

bool SealedMemoryAvailable() {
#if defined(__linux__) && defined(MFD_ALLOW_SEALING)
  const int fd = ::memfd_create("ckpt-audit-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return false;
  const bool sealable = ::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == 0;
  ::close(fd);
  return sealable;
#else
  return false;
#endif
}

std::uint64_t DefaultMaxHoldBytes() {
  constexpr std::uint64_t kCap = std::uint64_t{64} << 30;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return std::min(kCap, kib > kCap / 1024 ? kCap : kib * 1024);
  }
  return kCap;
}

IoResult<std::shared_ptr<HeldCopy>> HeldCopy::Create(const std::string& name, std::uint64_t size,
                                                     const FileIdentity& origin_identity) {
#if defined(__linux__) && defined(MFD_ALLOW_SEALING)
  // The memfd's name shows in /proc/PID/fd links only: any bytes are fine, but keep it short.
  const std::string label = "ckpt-held:" + name.substr(0, 200);
  const int fd = ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Error(errno);
  if (size > static_cast<std::uint64_t>(INT64_MAX) || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    const int code = size > static_cast<std::uint64_t>(INT64_MAX) ? EFBIG : errno;
    ::close(fd);
    return Error(code);
  }
  return std::shared_ptr<HeldCopy>(new HeldCopy(fd, size, origin_identity));
#else
  (void)name;
  (void)size;
  (void)origin_identity;
  return Error(ENOSYS);
#endif
}

HeldCopy::~HeldCopy() {
  if (memfd_ >= 0) ::close(memfd_);
}

void HeldCopy::MarkHeld(std::uint64_t begin, std::uint64_t end) {
  auto next = held_.lower_bound(begin);
  if (next != held_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == begin) {
      begin = prev->first;
      held_.erase(prev);
    }
  }
  next = held_.find(end);
  if (next != held_.end()) {
    end = next->second;
    held_.erase(next);
  }
  held_[begin] = end;
}

IoResult<void> HeldCopy::ReadLocked(const RandomAccessFile& origin, std::uint64_t offset, std::span<std::byte> out) {
  if (offset > size_ || out.size() > size_ - offset) return origin.ReadAt(offset, out);  // its own error
  const std::uint64_t end = offset + out.size();
  std::uint64_t at = offset;
  while (at < end) {
    auto next = held_.upper_bound(at);
    const std::span<std::byte> part = out.subspan(static_cast<std::size_t>(at - offset));
    if (next != held_.begin() && std::prev(next)->second > at) {
      const std::uint64_t held_end = std::min(std::prev(next)->second, end);
      if (auto read = PreadAll(memfd_, at, part.first(static_cast<std::size_t>(held_end - at))); !read) return read;
      at = held_end;
      continue;
    }
    if (sealed_) return Error(EROFS);  // a sealed copy that is not whole is never filled later
    const std::uint64_t gap_end = next == held_.end() ? end : std::min(next->first, end);
    const std::span<std::byte> gap = part.first(static_cast<std::size_t>(gap_end - at));
    if (auto read = origin.ReadAt(at, gap); !read) return read;
    if (auto wrote = PwriteAll(memfd_, at, gap); !wrote) return wrote;
    MarkHeld(at, gap_end);
    at = gap_end;
  }
  return {};
}

IoResult<void> HeldCopy::Read(const RandomAccessFile& origin, std::uint64_t offset, std::span<std::byte> out) {
  const std::scoped_lock lock(mutex_);
  return ReadLocked(origin, offset, out);
}

IoResult<void> HeldCopy::Complete(const RandomAccessFile& origin,
                                  const std::function<void(std::span<const std::byte>)>& each) {
  const std::scoped_lock lock(mutex_);
  if (!each && held_.size() == 1 && held_.begin()->first == 0 && held_.begin()->second == size_) return {};
  std::vector<std::byte> chunk(static_cast<std::size_t>(std::min(kCompleteChunk, std::max<std::uint64_t>(size_, 1))));
  for (std::uint64_t at = 0; at < size_; at += chunk.size()) {
    const std::span<std::byte> part(chunk.data(),
                                    static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), size_ - at)));
    if (auto read = ReadLocked(origin, at, part); !read) return read;
    if (each) each(part);
  }
  return {};
}

bool HeldCopy::complete() const {
  const std::scoped_lock lock(mutex_);
  return size_ == 0 || (held_.size() == 1 && held_.begin()->first == 0 && held_.begin()->second == size_);
}

IoResult<void> HeldCopy::Seal() {
  const std::scoped_lock lock(mutex_);
  if (sealed_) return {};
#if defined(__linux__) && defined(F_SEAL_SEAL)
  if (::fcntl(memfd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) return Error(errno);
  sealed_ = true;
  return {};
#else
  return Error(ENOSYS);
#endif
}

bool HeldCopy::sealed() const {
  const std::scoped_lock lock(mutex_);
  return sealed_;
}

HoldingSource::HoldingSource(std::shared_ptr<const ArtifactSource> inner, bool copy, std::uint64_t max_hold_bytes)
    : registry_(std::make_shared<Registry>()), copy_(copy), max_hold_bytes_(max_hold_bytes) {
  registry_->inner = std::move(inner);
}

IoResult<std::unique_ptr<RandomAccessFile>> HoldingSource::Open(const std::string& name) const {
  auto opened = registry_->inner->Open(name);
  if (!opened) return opened.error();
  std::shared_ptr<const RandomAccessFile> origin(std::move(*opened));
  const std::scoped_lock lock(registry_->mutex);
  auto found = registry_->files.find(name);
  if (found != registry_->files.end()) {
    if (found->second.origin->identity() != origin->identity()) return Error(kFileChangedErrno);
    found->second.origin = origin;
    return std::make_unique<HeldRead>(found->second.copy, origin);
  }
  // Recorded only once its copy exists: every recorded file of a copying hold has one.
  HeldFile held{nullptr, origin};
  if (copy_) {
    const std::uint64_t size = origin->size();
    if (size > max_hold_bytes_ || registry_->held_bytes > max_hold_bytes_ - size) return Error(ENOMEM);
    auto made = HeldCopy::Create(name, size, origin->identity());
    if (!made) return made.error();
    held.copy = std::move(*made);
    registry_->held_bytes += size;
  }
  registry_->files.emplace(name, held);
  return std::make_unique<HeldRead>(held.copy, origin);
}

}  // namespace ckpt
