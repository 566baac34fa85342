// Reads a range of a file front to back through one buffer: the binary readers' (pickle,
// GGUF) cursor. Every read is bounded by the range's end before anything is read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "lib/io/artifact_source.h"

namespace ckpt {

class FileCursor {
 public:
  /// The bytes [begin, end) of `file`, refilled `window` bytes at a time (or what a larger
  /// Take needs).
  FileCursor(const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end, std::size_t window = 64 << 10)
      : file_(file), pos_(begin), end_(end), window_(window) {}

  [[nodiscard]] std::uint64_t position() const { return pos_; }
  [[nodiscard]] std::uint64_t left() const { return end_ - pos_; }

  /// The next n bytes, or nullopt when fewer remain before the end. The view holds until the
  /// next Take. Callers bound n first (it is buffered whole).
  IoResult<std::optional<std::string_view>> Take(std::uint64_t n) {
    // Offsets are compared inside the buffer, never as sums: once a Skip has moved past the
    // buffer, `buffer_at_ + size - pos_` would wrap and pass any n.
    if (pos_ >= buffer_at_ && pos_ - buffer_at_ <= buffer_.size() && n <= buffer_.size() - (pos_ - buffer_at_)) {
      const std::string_view out(buffer_.data() + (pos_ - buffer_at_), static_cast<std::size_t>(n));
      pos_ += n;
      return std::optional<std::string_view>(out);
    }
    return Refill(n);
  }

  /// Moves past n bytes without reading them; never past the end.
  void Skip(std::uint64_t n) { pos_ += std::min(n, left()); }

 private:
  IoResult<std::optional<std::string_view>> Refill(std::uint64_t n);

  const RandomAccessFile& file_;
  std::uint64_t pos_;
  std::uint64_t end_;
  std::size_t window_;
  std::vector<char> buffer_;
  std::uint64_t buffer_at_ = 0;
};

}  // namespace ckpt
