#include "lib/io/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ckpt {

SmallFile ReadSmallFile(const std::string& path, std::size_t limit) {
  SmallFile out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    out.error = std::string("cannot be opened: ") + std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    out.error = "is not a regular file";
    return out;
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    ::close(fd);
    out.error = limit >= (std::size_t{1} << 20) ? "is larger than " + std::to_string(limit >> 20) + " MiB"
                                                : "is larger than " + std::to_string(limit >> 10) + " KiB";
    return out;
  }
  out.text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.text.size()) {
    const ssize_t n = ::pread(fd, out.text.data() + done, out.text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out.error = n < 0 ? std::string("cannot be read: ") + std::strerror(errno) : std::string("shrank while read");
      out.text.clear();
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return out;
}

}  // namespace ckpt
