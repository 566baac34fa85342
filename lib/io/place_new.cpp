#include "lib/io/place_new.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

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

}  // namespace ckpt
