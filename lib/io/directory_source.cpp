#include "lib/io/directory_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ckpt {
namespace {

boost::system::error_code LastError() {
  return {errno, boost::system::system_category()};
}

class PosixFile final : public RandomAccessFile {
 public:
  PosixFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  [[nodiscard]] std::uint64_t size() const override { return size_; }

  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    std::size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return LastError();
      }
      if (n == 0) return boost::system::error_code(EIO, boost::system::system_category());  // file shrank
      done += static_cast<std::size_t>(n);
    }
    return {};
  }

 private:
  int fd_;
  std::uint64_t size_;
};

}  // namespace

IoResult<std::unique_ptr<DirectorySource>> DirectorySource::OpenDirectory(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return LastError();
  return std::unique_ptr<DirectorySource>(new DirectorySource(fd));
}

DirectorySource::~DirectorySource() { ::close(dir_fd_); }

IoResult<std::vector<DirectoryEntry>> DirectorySource::List() const {
  int fd = ::openat(dir_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return LastError();
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    auto error = LastError();
    ::close(fd);
    return error;
  }
  std::vector<DirectoryEntry> entries;
  errno = 0;
  while (dirent* ent = ::readdir(dir)) {
    std::string name = ent->d_name;
    if (name == "." || name == "..") continue;
    DirectoryEntry entry{name, EntryKind::kOther, 0};
    struct stat st {};
    if (::fstatat(dir_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISREG(st.st_mode)) {
        entry.kind = EntryKind::kRegular;
        entry.size = static_cast<std::uint64_t>(st.st_size);
      } else if (S_ISDIR(st.st_mode)) {
        entry.kind = EntryKind::kDirectory;
      } else if (S_ISLNK(st.st_mode)) {
        entry.kind = EntryKind::kSymlink;
      }
    }
    entries.push_back(std::move(entry));
    errno = 0;
  }
  int read_errno = errno;
  ::closedir(dir);
  if (read_errno != 0) return boost::system::error_code(read_errno, boost::system::system_category());
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

IoResult<std::unique_ptr<RandomAccessFile>> DirectorySource::Open(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return boost::system::error_code(EINVAL, boost::system::system_category());
  }
  // O_NONBLOCK: a FIFO swapped in after listing must not block the open.
  int fd = ::openat(dir_fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return LastError();
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return boost::system::error_code(EINVAL, boost::system::system_category());
  }
  return std::unique_ptr<RandomAccessFile>(new PosixFile(fd, static_cast<std::uint64_t>(st.st_size)));
}

}  // namespace ckpt
