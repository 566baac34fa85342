#include "lib/io/artifact_source.h"

namespace ckpt {

IoResult<std::string> ReadAll(const RandomAccessFile& file) {
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  auto bytes = std::as_writable_bytes(std::span<char>(text));
  if (auto read = file.ReadAt(0, bytes); !read) return read.error();
  return text;
}

}  // namespace ckpt
