// The bytes of a file read whole (a configuration, an index, a header) for a parser that keeps
// offsets into them. A large buffer is mapped with its pages made present in one call: touching
// fresh memory page by page costs a fault per 4 KiB, which on a virtual machine is most of the
// cost of reading a 1 MB configuration (about 10 us each against 2 us per page populated).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ckpt {

/// Returns the whole pages inside [begin, begin + length) to the system; they read as zeros
/// afterwards. For memory its owner has finished with but still holds (a parsed prefix).
void ReleasePages(void* begin, std::size_t length);

/// Unmaps a TextBuffer's mapping.
struct MappingRelease {
  std::size_t length = 0;
  void operator()(char* address) const;
};

class TextBuffer {
 public:
  /// At or above this size a buffer is mapped and populated; below, it is a string.
  static constexpr std::size_t kMapFrom = std::size_t{256} << 10;

  TextBuffer() = default;
  explicit TextBuffer(std::string text) : small_(std::move(text)), size_(small_.size()) {}
  /// `size` bytes, uninitialised: the caller overwrites them all. Throws std::bad_alloc.
  static TextBuffer Uninitialised(std::size_t size);

  [[nodiscard]] std::string_view view() const { return {data(), size_}; }
  [[nodiscard]] const char* data() const { return mapped_ ? mapped_.get() : small_.data(); }
  [[nodiscard]] char* data() { return mapped_ ? mapped_.get() : small_.data(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  /// Gives the whole pages of bytes [0, `end`) back to the system: a reader that has passed
  /// them promises never to read them again (they read as zeros). Only a mapped buffer
  /// releases anything.
  void ReleasePrefix(std::size_t end);

 private:
  std::string small_;
  std::unique_ptr<char, MappingRelease> mapped_;
  std::size_t size_ = 0;
};

}  // namespace ckpt
