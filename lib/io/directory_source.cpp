#include "lib/io/directory_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>

namespace ckpt {
namespace {

boost::system::error_code LastError() { return {errno, boost::system::system_category()}; }
boost::system::error_code Error(int code) { return {code, boost::system::system_category()}; }

FileIdentity IdentityOf(const struct stat& st) {
  FileIdentity id;
  id.device = static_cast<std::uint64_t>(st.st_dev);
  id.inode = static_cast<std::uint64_t>(st.st_ino);
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return id;
}

std::atomic<std::uint64_t> g_file_opens{0};
std::atomic<std::uint64_t> g_bytes_read{0};

// O_NONBLOCK: a FIFO swapped in after listing must not block the open.
int OpenRegular(int dir_fd, const std::string& name, struct stat& st) {
  g_file_opens.fetch_add(1, std::memory_order_relaxed);
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

class PosixFile;

// Every PosixFile in the process shares a bounded set of open descriptors: a file that
// has none is reopened by name and checked against its admitted identity. So no number
// of shards, artifacts or threads can exhaust the descriptor limit, and a file swapped
// between two reads is caught at the second. A read leases its descriptor, so eviction
// never closes one in use (the cap is exceeded only while every descriptor is leased).
class DescriptorPool {
 public:
  static constexpr std::size_t kCapacity = 64;
  static DescriptorPool& Instance() {
    static DescriptorPool pool;
    return pool;
  }

  // Returns a leased descriptor for `file` (or -1 with `error` set); pair with Return().
  int Acquire(const PosixFile& file, boost::system::error_code& error);
  void Return(const PosixFile& file);
  // Adopts a descriptor opened by DirectorySource::Open.
  void Adopt(const PosixFile& file, int fd);
  // Closes `file`'s descriptor if it has one and it is not leased.
  void Forget(const PosixFile& file);
  // Closes every descriptor not in use (the process ran out of descriptors).
  void ShedIdle();

 private:
  struct Slot {
    int fd = -1;
    int leases = 0;
    std::uint64_t last_use = 0;
  };
  void EvictLocked();
  std::mutex mutex_;
  std::map<const PosixFile*, Slot> slots_;
  std::uint64_t clock_ = 0;
};

class PosixFile final : public RandomAccessFile {
 public:
  PosixFile(std::shared_ptr<const DirectorySource::DirHandle> dir, std::string name, FileIdentity identity)
      : dir_(std::move(dir)), name_(std::move(name)), identity_(std::move(identity)) {}
  ~PosixFile() override { DescriptorPool::Instance().Forget(*this); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  [[nodiscard]] std::uint64_t size() const override { return identity_.size; }
  [[nodiscard]] FileIdentity identity() const override { return identity_; }
  void Release() const override { DescriptorPool::Instance().Forget(*this); }

  [[nodiscard]] int DuplicateDescriptor() const override {
    DescriptorPool& pool = DescriptorPool::Instance();
    boost::system::error_code error;
    const int fd = pool.Acquire(*this, error);
    if (fd < 0) return -1;
    const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    pool.Return(*this);
    return copy;
  }

  // Opens the name again; the descriptor is refused unless it is the admitted file.
  int Reopen(boost::system::error_code& error) const {
    struct stat st {};
    const int fd = OpenRegular(dir_->fd, name_, st);
    if (fd < 0) {
      error = errno == ENOENT ? Error(kFileChangedErrno) : LastError();
      return -1;
    }
    if (IdentityOf(st) != identity_) {
      ::close(fd);
      error = Error(kFileChangedErrno);
      return -1;
    }
    return fd;
  }

  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    DescriptorPool& pool = DescriptorPool::Instance();
    boost::system::error_code error;
    const int fd = pool.Acquire(*this, error);
    if (fd < 0) return error;
    std::size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        error = LastError();
        break;
      }
      if (n == 0) {  // the admitted size is no longer there: it shrank
        error = Error(kFileChangedErrno);
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    pool.Return(*this);
    g_bytes_read.fetch_add(done, std::memory_order_relaxed);
    if (error) return error;
    return {};
  }

 private:
  std::shared_ptr<const DirectorySource::DirHandle> dir_;
  std::string name_;
  FileIdentity identity_;
};

int DescriptorPool::Acquire(const PosixFile& file, boost::system::error_code& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = slots_.find(&file);
    if (it != slots_.end() && it->second.fd >= 0) {
      ++it->second.leases;
      it->second.last_use = ++clock_;
      return it->second.fd;
    }
  }
  int fd = file.Reopen(error);  // outside the lock: opening may be slow
  if (fd < 0 && (error.value() == EMFILE || error.value() == ENFILE)) {
    ShedIdle();
    error.clear();
    fd = file.Reopen(error);
  }
  if (fd < 0) return -1;
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& slot = slots_[&file];
  if (slot.fd >= 0) {
    ::close(fd);  // another thread reopened it meanwhile
  } else {
    slot.fd = fd;
  }
  ++slot.leases;
  slot.last_use = ++clock_;
  EvictLocked();
  return slot.fd;
}

void DescriptorPool::Return(const PosixFile& file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(&file);
  if (it != slots_.end() && it->second.leases > 0) --it->second.leases;
}

void DescriptorPool::Adopt(const PosixFile& file, int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& slot = slots_[&file];
  if (slot.fd >= 0) ::close(slot.fd);
  slot.fd = fd;
  slot.last_use = ++clock_;
  EvictLocked();
}

void DescriptorPool::Forget(const PosixFile& file) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(&file);
  if (it == slots_.end() || it->second.leases > 0) return;
  if (it->second.fd >= 0) ::close(it->second.fd);
  slots_.erase(it);
}

void DescriptorPool::ShedIdle() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = slots_.begin(); it != slots_.end();) {
    if (it->second.leases == 0) {
      if (it->second.fd >= 0) ::close(it->second.fd);
      it = slots_.erase(it);
    } else {
      ++it;
    }
  }
}

void DescriptorPool::EvictLocked() {
  // A quarter of the process's descriptor limit at most, so the pool never starves the rest.
  static const std::size_t capacity = [] {
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kCapacity;
    return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur) / 4, 4, kCapacity);
  }();
  while (slots_.size() > capacity) {
    auto victim = slots_.end();
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if (it->second.leases == 0 && (victim == slots_.end() || it->second.last_use < victim->second.last_use)) {
        victim = it;
      }
    }
    if (victim == slots_.end()) return;  // every descriptor is in use
    if (victim->second.fd >= 0) ::close(victim->second.fd);
    slots_.erase(victim);
  }
}

}  // namespace

std::optional<FileIdentity> IdentityOfDescriptor(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return IdentityOf(st);
}

std::uint64_t DirectorySource::FileOpenCount() { return g_file_opens.load(std::memory_order_relaxed); }
std::uint64_t DirectorySource::BytesRead() { return g_bytes_read.load(std::memory_order_relaxed); }

DirectorySource::DirHandle::~DirHandle() {
  if (fd >= 0) ::close(fd);
}

IoResult<std::unique_ptr<DirectorySource>> DirectorySource::OpenDirectory(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return LastError();
  auto handle = std::make_shared<DirHandle>();
  handle->fd = fd;
  return std::unique_ptr<DirectorySource>(new DirectorySource(std::move(handle)));
}

namespace {

// Calls `visit` with each entry of the directory `dir_fd` (but . and ..), read through a
// descriptor of its own: an error when it cannot be opened or read.
IoResult<void> ForEachEntry(int dir_fd, const std::function<void(const dirent&)>& visit) {
  int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return LastError();
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    auto error = LastError();
    ::close(fd);
    return error;
  }
  errno = 0;
  while (dirent* ent = ::readdir(dir)) {
    const std::string_view name = ent->d_name;
    if (name != "." && name != "..") visit(*ent);
    errno = 0;
  }
  const int read_errno = errno;
  ::closedir(dir);
  if (read_errno != 0) return Error(read_errno);
  return {};
}

}  // namespace

void DirectorySource::Hide(std::vector<std::string> names) {
  hidden_ = std::move(names);
  std::sort(hidden_.begin(), hidden_.end());
}

IoResult<std::vector<DirectoryEntry>> DirectorySource::List() const {
  std::vector<DirectoryEntry> entries;
  auto listed = ForEachEntry(dir_->fd, [&](const dirent& ent) {
    if (std::binary_search(hidden_.begin(), hidden_.end(), std::string_view(ent.d_name))) return;
    DirectoryEntry entry{ent.d_name, EntryKind::kOther, 0};
    struct stat st {};
    if (::fstatat(dir_->fd, ent.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISREG(st.st_mode)) {
        entry.kind = EntryKind::kRegular;
        entry.size = static_cast<std::uint64_t>(st.st_size);
        entry.links = static_cast<std::uint64_t>(st.st_nlink);
      } else if (S_ISDIR(st.st_mode)) {
        entry.kind = EntryKind::kDirectory;
      } else if (S_ISLNK(st.st_mode)) {
        entry.kind = EntryKind::kSymlink;
      }
    }
    entries.push_back(std::move(entry));
  });
  if (!listed) return listed.error();
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

IoResult<std::vector<std::string>> DirectorySource::RegularFileNames() const {
  std::vector<std::string> names;
  auto listed = ForEachEntry(dir_->fd, [&](const dirent& ent) {
    if (std::binary_search(hidden_.begin(), hidden_.end(), std::string_view(ent.d_name))) return;
    bool regular = ent.d_type == DT_REG;
    if (ent.d_type == DT_UNKNOWN) {
      struct stat st {};
      regular = ::fstatat(dir_->fd, ent.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    }
    if (regular) names.emplace_back(ent.d_name);
  });
  if (!listed) return listed.error();
  std::sort(names.begin(), names.end());
  return names;
}

IoResult<FileIdentity> DirectorySource::Identity() const {
  auto identity = IdentityOfDescriptor(dir_->fd);
  if (!identity) return LastError();
  return *identity;
}

IoResult<std::unique_ptr<RandomAccessFile>> DirectorySource::Open(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return Error(EINVAL);
  struct stat st {};
  int fd = OpenRegular(dir_->fd, name, st);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
    DescriptorPool::Instance().ShedIdle();
    fd = OpenRegular(dir_->fd, name, st);
  }
  if (fd < 0) return LastError();
  auto file = std::make_unique<PosixFile>(dir_, name, IdentityOf(st));
  DescriptorPool::Instance().Adopt(*file, fd);
  return std::unique_ptr<RandomAccessFile>(std::move(file));
}

IoResult<FileIdentity> DirectorySource::Stat(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return Error(EINVAL);
  struct stat st {};
  if (::fstatat(dir_->fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return LastError();
  if (!S_ISREG(st.st_mode)) return Error(EINVAL);
  return IdentityOf(st);
}

IoResult<std::unique_ptr<DirectorySource>> DirectorySource::OpenSubdirectory(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return Error(EINVAL);
  const int fd = ::openat(dir_->fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return LastError();
  auto handle = std::make_shared<DirHandle>();
  handle->fd = fd;
  return std::unique_ptr<DirectorySource>(new DirectorySource(std::move(handle)));
}

IoResult<std::string> DirectorySource::ReadLink(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos) return Error(EINVAL);
  std::string target(4097, '\0');
  const ssize_t n = ::readlinkat(dir_->fd, name.c_str(), target.data(), target.size());
  if (n < 0) return LastError();
  if (static_cast<std::size_t>(n) >= target.size()) return Error(ENAMETOOLONG);
  target.resize(static_cast<std::size_t>(n));
  return target;
}

}  // namespace ckpt
