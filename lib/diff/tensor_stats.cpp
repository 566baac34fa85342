#include "lib/diff/tensor_stats.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace ckpt {
namespace {

// float16 -> double for every bit pattern, built once (512 KiB).
const std::array<double, 65536>& HalfTable() {
  static const std::array<double, 65536> table = [] {
    std::array<double, 65536> t{};
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
      const int sign = (bits >> 15) ? -1 : 1;
      const int exponent = static_cast<int>((bits >> 10) & 0x1F);
      const int mantissa = static_cast<int>(bits & 0x3FF);
      double value = 0;
      if (exponent == 0) {
        value = std::ldexp(mantissa, -24);  // subnormal
      } else if (exponent == 31) {
        value = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
      } else {
        value = std::ldexp(1024 + mantissa, exponent - 25);
      }
      t[bits] = sign * value;
    }
    return t;
  }();
  return table;
}

std::uint16_t Load16(const std::byte* p) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) | (std::to_integer<unsigned>(p[1]) << 8));
}

std::uint32_t Load32(const std::byte* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);  // little-endian host (checked in the build)
  return v;
}

static_assert(std::endian::native == std::endian::little, "element decoding assumes a little-endian host");

}  // namespace

std::optional<ElementType> ElementTypeOf(std::string_view d) {
  if (d == "float32") return ElementType::kFloat32;
  if (d == "bfloat16") return ElementType::kBFloat16;
  if (d == "float16") return ElementType::kFloat16;
  return std::nullopt;
}

std::size_t ElementSize(ElementType type) { return type == ElementType::kFloat32 ? 4 : 2; }

double WidenElement(ElementType type, const std::byte* p) {
  switch (type) {
    case ElementType::kFloat32:
      return static_cast<double>(std::bit_cast<float>(Load32(p)));
    case ElementType::kBFloat16:
      return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(Load16(p)) << 16));
    case ElementType::kFloat16:
      return HalfTable()[Load16(p)];
  }
  return 0;
}

void CompensatedSum::Add(double x) {
  const double t = sum + x;
  compensation += (std::fabs(sum) >= std::fabs(x)) ? (sum - t) + x : (x - t) + sum;
  sum = t;
}

void CompensatedSum::Merge(const CompensatedSum& other) {
  Add(other.sum);
  Add(other.compensation);
}

namespace {

// One type's loop, with the element decoding inlined. Sums run in plain doubles within
// blocks of kBlock elements (relative error <= kBlock * 2^-53, about 3e-14) and are folded
// into the compensated totals once per block: exact enough, and several times faster than
// a compensated add per element.
template <ElementType kType>
void AccumulateTyped(DiffStats& s, const std::byte* a, const std::byte* b, std::size_t count) {
  constexpr std::size_t kSize = kType == ElementType::kFloat32 ? 4 : 2;
  constexpr std::size_t kBlock = 256;
  for (std::size_t base = 0; base < count; base += kBlock) {
    const std::size_t end = std::min(count, base + kBlock);
    double block_a = 0;
    double block_d = 0;
    for (std::size_t i = base; i < end; ++i) {
      const std::byte* pa = a + i * kSize;
      const std::byte* pb = b + i * kSize;
      const std::uint32_t bits_a = kSize == 4 ? Load32(pa) : Load16(pa);
      const std::uint32_t bits_b = kSize == 4 ? Load32(pb) : Load16(pb);
      const double x = WidenElement(kType, pa);
      const bool x_finite = std::isfinite(x);
      if (x_finite) block_a += x * x;
      if (bits_a == bits_b) continue;  // bit-identical, NaNs included
      ++s.changed;
      const double y = WidenElement(kType, pb);
      if (x_finite && std::isnan(y)) ++s.nan_appeared;
      if (x_finite && std::isinf(y)) ++s.inf_appeared;
      if (!x_finite || !std::isfinite(y)) {
        ++s.non_finite_pairs;
        continue;
      }
      const double d = y - x;
      s.max_abs = std::max(s.max_abs, std::fabs(d));
      block_d += d * d;
    }
    s.squared_a.Add(block_a);
    s.squared_diff.Add(block_d);
  }
}

}  // namespace

void DiffStats::Accumulate(ElementType type, std::span<const std::byte> a, std::span<const std::byte> b) {
  const std::size_t count = a.size() / ElementSize(type);
  numel += count;
  switch (type) {
    case ElementType::kFloat32:
      AccumulateTyped<ElementType::kFloat32>(*this, a.data(), b.data(), count);
      break;
    case ElementType::kBFloat16:
      AccumulateTyped<ElementType::kBFloat16>(*this, a.data(), b.data(), count);
      break;
    case ElementType::kFloat16:
      AccumulateTyped<ElementType::kFloat16>(*this, a.data(), b.data(), count);
      break;
  }
}

void DiffStats::Merge(const DiffStats& other) {
  numel += other.numel;
  changed += other.changed;
  max_abs = std::max(max_abs, other.max_abs);
  squared_diff.Merge(other.squared_diff);
  squared_a.Merge(other.squared_a);
  nan_appeared += other.nan_appeared;
  inf_appeared += other.inf_appeared;
  non_finite_pairs += other.non_finite_pairs;
}

double DiffStats::l2() const { return std::sqrt(squared_diff.Value()); }

std::optional<double> DiffStats::rel_l2() const {
  const double norm = std::sqrt(squared_a.Value());
  if (norm == 0) return std::nullopt;
  return l2() / norm;
}

}  // namespace ckpt
