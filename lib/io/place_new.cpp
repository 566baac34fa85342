#include "lib/io/place_new.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace ckpt {

int PlaceNew(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return errno;
  // No RENAME_NOREPLACE on this file system.
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) {
    // An empty directory of our own claims the name (mkdir fails if anything is there);
    // rename(2) replaces only an empty directory, so anything put in it meanwhile stops it.
    if (::mkdir(to.c_str(), 0700) != 0) return errno;
    if (::rename(from.c_str(), to.c_str()) != 0) {
      const int error = errno;
      ::rmdir(to.c_str());
      return error;
    }
    return 0;
  }
  if (::link(from.c_str(), to.c_str()) != 0) return errno;  // EEXIST when `to` is there
  ::unlink(from.c_str());
  return 0;
}

NewFileBeside::NewFileBeside(const std::filesystem::path& target) : target_(target) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  path_ = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  fd_ = ::mkstemp(path_.data());
}

NewFileBeside::~NewFileBeside() {
  if (fd_ >= 0) ::close(fd_);
  if (!kept_) ::unlink(path_.c_str());
}

bool NewFileBeside::Keep() {
  const mode_t mask = ::umask(0);  // mkstemp makes 0600; the output gets the usual 0666 & ~umask
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0 || ::fsync(fd_) != 0) return false;
  ::close(fd_);
  fd_ = -1;
  // Never replaces: a destination created meanwhile stops the move (EEXIST).
  if (const int error = PlaceNew(path_, target_.string()); error != 0) {
    errno = error;
    return false;
  }
  kept_ = true;
  return true;
}

bool WriteAll(int fd, std::uint64_t offset, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace ckpt
