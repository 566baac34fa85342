#include "lib/attest/input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "lib/core/parallel.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"

namespace ckpt::attest {
namespace {

namespace fs = std::filesystem;

// The SHA-256 of the regular file at `path` (opened without blocking on a FIFO).
std::optional<std::string> HashPath(const fs::path& path, std::uint64_t& size, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + QuoteForMessage(path.string()) + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = QuoteForMessage(path.string()) + " is not a regular file";
    return std::nullopt;
  }
  std::vector<char> buffer(1 << 20);
  Sha256 sha;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = "cannot read " + QuoteForMessage(path.string()) + ": " + std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    size += static_cast<std::uint64_t>(n);
    sha.Update(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
  return sha.FinalHex();
}

}  // namespace

InputFiles DigestInputFiles(const std::string& path,
                            const std::function<std::optional<std::string>(const std::string&)>& known, unsigned jobs,
                            std::span<const std::string> excluded) {
  InputFiles out;
  std::error_code ec;
  const fs::path root(path);
  const fs::file_status status = fs::status(root, ec);  // the path given follows a symlink, as users expect
  if (ec) {
    out.error = "cannot read " + QuoteForMessage(path) + ": " + ec.message();
    return out;
  }
  std::vector<std::pair<std::string, fs::path>> found;  // name, path
  if (fs::is_regular_file(status)) {
    found.emplace_back(root.filename().string(), root);
  } else if (fs::is_directory(status)) {
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::file_status own = it->symlink_status(ec);
      if (ec) break;
      if (found.size() + out.unaccounted.size() >= kMaxInputFiles) {
        out.error = QuoteForMessage(path) + " holds more than " + std::to_string(kMaxInputFiles) + " entries";
        return out;
      }
      const std::string name = it->path().lexically_relative(root).generic_string();
      if (std::binary_search(excluded.begin(), excluded.end(), name)) continue;
      if (fs::is_symlink(own)) {
        // Never followed: a link is an entry no subject names (it may point anywhere).
        std::error_code target_ec;
        const fs::path target = fs::read_symlink(it->path(), target_ec);
        out.unaccounted.emplace_back(name, "a symbolic link to " + QuoteForMessage(target.string()));
        continue;
      }
      if (fs::is_directory(own)) {
        std::error_code empty_ec;
        if (fs::is_empty(it->path(), empty_ec) && !empty_ec) out.unaccounted.emplace_back(name, "an empty directory");
        continue;
      }
      if (!fs::is_regular_file(own)) {
        out.unaccounted.emplace_back(name, fs::is_fifo(own)                                       ? "a FIFO"
                                           : fs::is_socket(own)                                   ? "a socket"
                                           : fs::is_block_file(own) || fs::is_character_file(own) ? "a device"
                                                                                                  : "a special file");
        continue;
      }
      found.emplace_back(name, it->path());
    }
    if (ec) {
      out.error = "cannot list " + QuoteForMessage(path) + ": " + ec.message();
      return out;
    }
  } else {
    out.error = QuoteForMessage(path) + " is neither a file nor a directory";
    return out;
  }
  std::sort(found.begin(), found.end());
  std::sort(out.unaccounted.begin(), out.unaccounted.end());
  for (auto& entry : out.unaccounted) entry.first = ToValidUtf8(entry.first);
  // What the audit knows is looked up here, on this thread (`known` need not be thread-safe).
  std::vector<std::optional<std::string>> digests(found.size());
  if (known) {
    for (std::size_t i = 0; i < found.size(); ++i) digests[i] = known(found[i].first);
  }
  std::vector<std::uint64_t> sizes(found.size(), 0);
  std::vector<std::string> errors(found.size());
  // Each file is independent: one a worker, each read once through its own 1 MiB buffer.
  ParallelFor(found.size(), std::max(1u, jobs), [&](std::size_t i) {
    if (digests[i]) {
      std::error_code size_ec;
      sizes[i] = fs::file_size(found[i].second, size_ec);
    } else {
      digests[i] = HashPath(found[i].second, sizes[i], errors[i]);
    }
  });
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (!digests[i]) {
      out.error = errors[i];  // the first failure in name order, whatever finished first
      out.files.clear();
      return out;
    }
    out.files.push_back({ToValidUtf8(found[i].first), std::move(*digests[i]), sizes[i]});
  }
  return out;
}

}  // namespace ckpt::attest
