#include "lib/io/file_cursor.h"

#include <algorithm>
#include <span>

namespace ckpt {

IoResult<std::optional<std::string_view>> FileCursor::Refill(std::uint64_t n) {
  if (n > left()) return std::optional<std::string_view>();
  const std::uint64_t want = std::max<std::uint64_t>(n, std::min<std::uint64_t>(window_, left()));
  buffer_.resize(static_cast<std::size_t>(want));
  buffer_at_ = pos_;
  if (auto read = file_.ReadAt(pos_, std::as_writable_bytes(std::span(buffer_))); !read) return read.error();
  const std::string_view out(buffer_.data() + (pos_ - buffer_at_), static_cast<std::size_t>(n));
  pos_ += n;
  return std::optional<std::string_view>(out);
}

}  // namespace ckpt
