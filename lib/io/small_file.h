// Reading a small file whole (a key, a signed statement, a policy or baseline file): a
// regular file only (opened without blocking on a FIFO), bounded before reading.
#pragma once

#include <cstddef>
#include <string>

namespace ckpt {

struct SmallFile {
  std::string text;
  std::string error;  ///< why it could not be read ("is not a regular file", ...); empty on success
  [[nodiscard]] bool ok() const { return error.empty(); }
};

/// The whole content of the regular file at `path`, or why not: it cannot be opened or
/// read, is not a regular file, or is larger than `limit` bytes.
SmallFile ReadSmallFile(const std::string& path, std::size_t limit);

}  // namespace ckpt
