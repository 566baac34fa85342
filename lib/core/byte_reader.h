// Bounds-checked little-endian reads over an immutable byte span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "lib/core/checked_math.h"

namespace ckpt {

/// Reads values front to back; every read checks the remaining length first and
/// returns nullopt instead of touching bytes past the end.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  [[nodiscard]] std::size_t position() const { return pos_; }
  [[nodiscard]] std::size_t remaining() const { return bytes_.size() - pos_; }

  [[nodiscard]] std::optional<std::uint64_t> ReadU64LE() {
    if (remaining() < 8) return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      value |= static_cast<std::uint64_t>(bytes_[pos_ + i]) << (8 * i);
    }
    pos_ += 8;
    return value;
  }

  /// The next `length` bytes, or nullopt when fewer remain.
  [[nodiscard]] std::optional<std::span<const std::byte>> ReadBytes(std::uint64_t length) {
    if (length > remaining()) return std::nullopt;
    auto out = bytes_.subspan(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return out;
  }

 private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
};

/// Subspan [offset, offset + length) of `bytes`, or nullopt if it does not fit.
[[nodiscard]] inline std::optional<std::span<const std::byte>> StrictSubspan(std::span<const std::byte> bytes,
                                                                             std::uint64_t offset,
                                                                             std::uint64_t length) {
  auto end = CheckedAdd(offset, length);
  if (!end || *end > bytes.size()) return std::nullopt;
  return bytes.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
}

inline std::string_view AsStringView(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// Whether `head` begins with the bytes of `magic`.
inline bool StartsWith(std::span<const std::byte> head, std::string_view magic) {
  return head.size() >= magic.size() && AsStringView(head.first(magic.size())) == magic;
}

}  // namespace ckpt
