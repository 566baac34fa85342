// Overflow-checked unsigned arithmetic for every length and offset read from a file.
#pragma once

#include <cstdint>
#include <optional>

namespace ckpt {

/// a + b, or nullopt when the sum does not fit in 64 bits.
[[nodiscard]] constexpr std::optional<std::uint64_t> CheckedAdd(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

/// a * b, or nullopt when the product does not fit in 64 bits.
[[nodiscard]] constexpr std::optional<std::uint64_t> CheckedMul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

}  // namespace ckpt
