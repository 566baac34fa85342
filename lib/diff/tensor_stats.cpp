#include "lib/diff/tensor_stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12 reports the headers' own _mm512_undefined_* temporaries as maybe-uninitialized.
#if defined(__clang__)
#include <immintrin.h>
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
#endif

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

// The statistics kernel runs over float32 bit patterns (float16 and bfloat16 are widened
// to float32 exactly and injectively first, NaN payloads included, so "bits differ" keeps
// its meaning). Within a block of kBlock elements, sums run in plain doubles in kLanes
// interleaved lanes (element i goes to lane i % kLanes) folded in a fixed tree; each block's
// totals are added to the compensated sums. The portable loop and the AVX2 loop perform
// the same IEEE operations in the same order (no FMA), so results are bit-identical on
// every machine. Relative error per block <= kBlock * 2^-53 (about 3e-14).
constexpr std::size_t kLanes = 16;
constexpr std::size_t kBlock = 256;
constexpr std::uint32_t kExponentMask = 0x7F800000;
constexpr std::uint32_t kMagnitudeMask = 0x7FFFFFFF;

struct BlockTotals {
  double squared_a = 0;
  double squared_diff = 0;
  double max_abs = 0;
  std::uint64_t changed = 0;
  std::uint64_t nan_appeared = 0;
  std::uint64_t inf_appeared = 0;
  std::uint64_t non_finite_pairs = 0;
};

// Lanes fold by halves: t_k = l_k + l_{k+8}, u_k = t_k + t_{k+4}, then (u0 + u2) + (u1 + u3),
// which is what the vector folds compute.
double FoldLanes(const double (&lane)[kLanes]) {
  double t[8];
  for (std::size_t k = 0; k < 8; ++k) t[k] = lane[k] + lane[k + 8];
  double u[4];
  for (std::size_t k = 0; k < 4; ++k) u[k] = t[k] + t[k + 4];
  return (u[0] + u[2]) + (u[1] + u[3]);
}

// `a` and `b` hold `count` little-endian float32 words at any alignment.
void PortableBlock(const std::byte* a, const std::byte* b, std::size_t count, BlockTotals& out) {
  double lane_a[kLanes] = {};
  double lane_d[kLanes] = {};
  double max_abs = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t bits_a = Load32(a + 4 * i);
    const std::uint32_t bits_b = Load32(b + 4 * i);
    const bool a_finite = (bits_a & kExponentMask) != kExponentMask;
    const bool b_finite = (bits_b & kExponentMask) != kExponentMask;
    const double x = static_cast<double>(std::bit_cast<float>(bits_a));
    const double y = static_cast<double>(std::bit_cast<float>(bits_b));
    const double xa = a_finite ? x : 0.0;
    lane_a[i % kLanes] += xa * xa;
    const double d = a_finite && b_finite ? y - x : 0.0;
    lane_d[i % kLanes] += d * d;
    max_abs = std::max(max_abs, std::fabs(d));
    if (bits_a == bits_b) continue;
    ++out.changed;
    const std::uint32_t magnitude_b = bits_b & kMagnitudeMask;
    if (a_finite && magnitude_b > kExponentMask) ++out.nan_appeared;
    if (a_finite && magnitude_b == kExponentMask) ++out.inf_appeared;
    if (!a_finite || !b_finite) ++out.non_finite_pairs;
  }
  out.squared_a = FoldLanes(lane_a);
  out.squared_diff = FoldLanes(lane_d);
  out.max_abs = max_abs;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CKPT_STATS_X86 1

__attribute__((target("avx2"))) std::uint64_t SumLanes32(__m256i v) {
  alignas(32) std::uint32_t lane[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane), v);
  std::uint64_t total = 0;
  for (std::uint32_t n : lane) total += n;
  return total;
}

// FoldLanes over four vectors holding lanes 0-3, 4-7, 8-11 and 12-15.
__attribute__((target("avx2"))) double FoldAvx2(__m256d l0, __m256d l1, __m256d l2, __m256d l3) {
  const __m256d u = _mm256_add_pd(_mm256_add_pd(l0, l2), _mm256_add_pd(l1, l3));         // u_k, k < 4
  const __m128d v = _mm_add_pd(_mm256_castpd256_pd128(u), _mm256_extractf128_pd(u, 1));  // u0+u2, u1+u3
  return _mm_cvtsd_f64(v) + _mm_cvtsd_f64(_mm_unpackhi_pd(v, v));
}

__attribute__((target("avx2"))) double MaxLanes(__m256d v) {
  alignas(32) double lane[4];
  _mm256_store_pd(lane, v);
  return std::max(std::max(lane[0], lane[1]), std::max(lane[2], lane[3]));
}

__attribute__((target("avx2"))) void Avx2Block(const std::byte* a, const std::byte* b, std::size_t count,
                                               BlockTotals& out) {
  const __m256i exponent = _mm256_set1_epi32(static_cast<int>(kExponentMask));
  const __m256i magnitude = _mm256_set1_epi32(static_cast<int>(kMagnitudeMask));
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d acc_a[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
  __m256d acc_d[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
  __m256d max_abs = _mm256_setzero_pd();
  __m256i same = _mm256_setzero_si256();
  __m256i nan_appeared = _mm256_setzero_si256();
  __m256i inf_appeared = _mm256_setzero_si256();
  __m256i non_finite = _mm256_setzero_si256();
  alignas(32) std::byte tail_a[kLanes * 4] = {};
  alignas(32) std::byte tail_b[kLanes * 4] = {};
  const std::size_t padded = (count + kLanes - 1) / kLanes * kLanes;
  for (std::size_t i = 0; i < padded; i += kLanes) {
    const std::byte* pa = a + 4 * i;
    const std::byte* pb = b + 4 * i;
    if (i + kLanes > count) {  // zero padding: finite, unchanged, adds exactly nothing
      std::memcpy(tail_a, pa, (count - i) * 4);
      std::memcpy(tail_b, pb, (count - i) * 4);
      pa = tail_a;
      pb = tail_b;
    }
    for (std::size_t half = 0; half < 2; ++half) {
      const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa + 32 * half));
      const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb + 32 * half));
      const __m256i a_non_finite = _mm256_cmpeq_epi32(_mm256_and_si256(va, exponent), exponent);
      const __m256i b_non_finite = _mm256_cmpeq_epi32(_mm256_and_si256(vb, exponent), exponent);
      const __m256i equal = _mm256_cmpeq_epi32(va, vb);
      const __m256i magnitude_b = _mm256_and_si256(vb, magnitude);
      const __m256i b_nan = _mm256_cmpgt_epi32(magnitude_b, exponent);
      const __m256i b_inf = _mm256_cmpeq_epi32(magnitude_b, exponent);
      const __m256i pair_non_finite = _mm256_or_si256(a_non_finite, b_non_finite);
      same = _mm256_sub_epi32(same, equal);
      nan_appeared = _mm256_sub_epi32(nan_appeared, _mm256_andnot_si256(a_non_finite, b_nan));
      inf_appeared = _mm256_sub_epi32(inf_appeared, _mm256_andnot_si256(a_non_finite, b_inf));
      non_finite = _mm256_sub_epi32(non_finite, _mm256_andnot_si256(equal, pair_non_finite));

      const __m256 fa = _mm256_castsi256_ps(va);
      const __m256 fb = _mm256_castsi256_ps(vb);
      for (std::size_t quarter = 0; quarter < 2; ++quarter) {
        const __m128 fa4 = quarter == 0 ? _mm256_castps256_ps128(fa) : _mm256_extractf128_ps(fa, 1);
        const __m128 fb4 = quarter == 0 ? _mm256_castps256_ps128(fb) : _mm256_extractf128_ps(fb, 1);
        const __m128i a_skip4 =
            quarter == 0 ? _mm256_castsi256_si128(a_non_finite) : _mm256_extracti128_si256(a_non_finite, 1);
        const __m128i d_skip4 =
            quarter == 0 ? _mm256_castsi256_si128(pair_non_finite) : _mm256_extracti128_si256(pair_non_finite, 1);
        const __m256d x = _mm256_cvtps_pd(fa4);
        const __m256d y = _mm256_cvtps_pd(fb4);
        const __m256d xa = _mm256_andnot_pd(_mm256_castsi256_pd(_mm256_cvtepi32_epi64(a_skip4)), x);
        const __m256d d = _mm256_andnot_pd(_mm256_castsi256_pd(_mm256_cvtepi32_epi64(d_skip4)), _mm256_sub_pd(y, x));
        const std::size_t lane = 2 * half + quarter;
        acc_a[lane] = _mm256_add_pd(acc_a[lane], _mm256_mul_pd(xa, xa));
        acc_d[lane] = _mm256_add_pd(acc_d[lane], _mm256_mul_pd(d, d));
        max_abs = _mm256_max_pd(max_abs, _mm256_andnot_pd(sign, d));
      }
    }
  }
  out.squared_a = FoldAvx2(acc_a[0], acc_a[1], acc_a[2], acc_a[3]);
  out.squared_diff = FoldAvx2(acc_d[0], acc_d[1], acc_d[2], acc_d[3]);
  out.max_abs = MaxLanes(max_abs);
  out.changed = padded - SumLanes32(same);
  out.nan_appeared = SumLanes32(nan_appeared);
  out.inf_appeared = SumLanes32(inf_appeared);
  out.non_finite_pairs = SumLanes32(non_finite);
}

// FoldLanes over two vectors holding lanes 0-7 and 8-15.
__attribute__((target("avx512f"))) double FoldAvx512(__m512d low, __m512d high) {
  alignas(64) double t[8];
  _mm512_store_pd(t, _mm512_add_pd(low, high));
  double u[4];
  for (std::size_t k = 0; k < 4; ++k) u[k] = t[k] + t[k + 4];
  return (u[0] + u[2]) + (u[1] + u[3]);
}

// The same block with AVX-512: sixteen elements per step, two accumulators of eight lanes.
__attribute__((target("avx512f,popcnt"))) void Avx512Block(const std::byte* a, const std::byte* b, std::size_t count,
                                                           BlockTotals& out) {
  const __m512i exponent = _mm512_set1_epi32(static_cast<int>(kExponentMask));
  const __m512i magnitude = _mm512_set1_epi32(static_cast<int>(kMagnitudeMask));
  __m512d acc_a[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  __m512d acc_d[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  __m512d max_abs = _mm512_setzero_pd();
  std::uint64_t same = 0;
  std::uint64_t nan_appeared = 0;
  std::uint64_t inf_appeared = 0;
  std::uint64_t non_finite = 0;
  const std::size_t padded = (count + kLanes - 1) / kLanes * kLanes;
  for (std::size_t i = 0; i < padded; i += kLanes) {
    // Masked loads zero the padding past `count`: finite, unchanged, adds exactly nothing.
    const auto live = static_cast<__mmask16>(i + kLanes <= count ? 0xFFFFU : (1U << (count - i)) - 1U);
    const __m512i va = _mm512_maskz_loadu_epi32(live, a + 4 * i);
    const __m512i vb = _mm512_maskz_loadu_epi32(live, b + 4 * i);
    const __mmask16 a_non_finite = _mm512_cmpeq_epi32_mask(_mm512_and_si512(va, exponent), exponent);
    const __mmask16 b_non_finite = _mm512_cmpeq_epi32_mask(_mm512_and_si512(vb, exponent), exponent);
    const __mmask16 equal = _mm512_cmpeq_epi32_mask(va, vb);
    const __m512i magnitude_b = _mm512_and_si512(vb, magnitude);
    const __mmask16 b_nan = _mm512_cmpgt_epi32_mask(magnitude_b, exponent);
    const __mmask16 b_inf = _mm512_cmpeq_epi32_mask(magnitude_b, exponent);
    const auto pair_finite = static_cast<unsigned>(~(a_non_finite | b_non_finite) & 0xFFFFU);
    const auto a_finite = static_cast<unsigned>(~a_non_finite & 0xFFFFU);
    same += static_cast<std::uint64_t>(_mm_popcnt_u32(equal));
    nan_appeared += static_cast<std::uint64_t>(_mm_popcnt_u32(a_finite & b_nan));
    inf_appeared += static_cast<std::uint64_t>(_mm_popcnt_u32(a_finite & b_inf));
    non_finite += static_cast<std::uint64_t>(_mm_popcnt_u32(~static_cast<unsigned>(equal) & ~pair_finite & 0xFFFFU));
    for (std::size_t half = 0; half < 2; ++half) {
      const __m256 fa = _mm256_castsi256_ps(half == 0 ? _mm512_castsi512_si256(va) : _mm512_extracti64x4_epi64(va, 1));
      const __m256 fb = _mm256_castsi256_ps(half == 0 ? _mm512_castsi512_si256(vb) : _mm512_extracti64x4_epi64(vb, 1));
      const __m512d x = _mm512_cvtps_pd(fa);
      const __m512d y = _mm512_cvtps_pd(fb);
      const auto a_ok = static_cast<__mmask8>(a_finite >> (8 * half));
      const auto d_ok = static_cast<__mmask8>(pair_finite >> (8 * half));
      const __m512d xa = _mm512_maskz_mov_pd(a_ok, x);
      const __m512d d = _mm512_maskz_sub_pd(d_ok, y, x);
      acc_a[half] = _mm512_add_pd(acc_a[half], _mm512_mul_pd(xa, xa));
      acc_d[half] = _mm512_add_pd(acc_d[half], _mm512_mul_pd(d, d));
      max_abs = _mm512_max_pd(max_abs, _mm512_abs_pd(d));
    }
  }
  out.squared_a = FoldAvx512(acc_a[0], acc_a[1]);
  out.squared_diff = FoldAvx512(acc_d[0], acc_d[1]);
  alignas(64) double maxima[8];
  _mm512_store_pd(maxima, max_abs);
  out.max_abs = *std::max_element(std::begin(maxima), std::end(maxima));
  out.changed = padded - same;
  out.nan_appeared = nan_appeared;
  out.inf_appeared = inf_appeared;
  out.non_finite_pairs = non_finite;
}
#endif

using BlockKernel = void (*)(const std::byte*, const std::byte*, std::size_t, BlockTotals&);

BlockKernel KernelFunction(StatsKernel kernel) {
#ifdef CKPT_STATS_X86
  if (kernel == StatsKernel::kAvx512) return Avx512Block;
  if (kernel == StatsKernel::kAvx2) return Avx2Block;
#else
  (void)kernel;
#endif
  return PortableBlock;
}

void AddBlock(DiffStats& s, const BlockTotals& block) {
  s.squared_a.Add(block.squared_a);
  s.squared_diff.Add(block.squared_diff);
  s.max_abs = std::max(s.max_abs, block.max_abs);
  s.changed += block.changed;
  s.nan_appeared += block.nan_appeared;
  s.inf_appeared += block.inf_appeared;
  s.non_finite_pairs += block.non_finite_pairs;
}

// float16 -> float32 bits for every pattern: exact for numbers, payload-preserving for NaN
// (no quieting), so distinct float16 patterns stay distinct.
const std::array<std::uint32_t, 65536>& HalfBitsTable() {
  static const std::array<std::uint32_t, 65536> table = [] {
    std::array<std::uint32_t, 65536> t{};
    for (std::uint32_t bits = 0; bits < 65536; ++bits) {
      const std::uint32_t sign = (bits & 0x8000U) << 16;
      if ((bits & 0x7C00U) == 0x7C00U) {
        t[bits] = sign | kExponentMask | ((bits & 0x3FFU) << 13);
      } else {
        t[bits] = std::bit_cast<std::uint32_t>(static_cast<float>(HalfTable()[bits]));
      }
    }
    return t;
  }();
  return table;
}

template <ElementType kType>
void WidenBlock(const std::byte* in, std::size_t count, std::uint32_t* out) {
  if constexpr (kType == ElementType::kBFloat16) {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::uint32_t>(Load16(in + 2 * i)) << 16;
  } else {
    const auto& table = HalfBitsTable();
    for (std::size_t i = 0; i < count; ++i) out[i] = table[Load16(in + 2 * i)];
  }
}

}  // namespace

std::string_view StatsKernelName(StatsKernel kernel) {
  switch (kernel) {
    case StatsKernel::kPortable:
      return "portable";
    case StatsKernel::kAvx2:
      return "avx2";
    case StatsKernel::kAvx512:
      return "avx512";
  }
  return "portable";
}

std::vector<StatsKernel> AvailableStatsKernels() {
  std::vector<StatsKernel> kernels = {StatsKernel::kPortable};
#ifdef CKPT_STATS_X86
  if (__builtin_cpu_supports("avx2")) kernels.push_back(StatsKernel::kAvx2);
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("popcnt")) kernels.push_back(StatsKernel::kAvx512);
#endif
  return kernels;
}

StatsKernel ActiveStatsKernel() {
  static const StatsKernel active = [] {
    const std::vector<StatsKernel> kernels = AvailableStatsKernels();
    const char* cap = std::getenv("CKPT_STATS_KERNEL");
    const std::string_view limit = cap ? cap : "";
    for (StatsKernel kernel : kernels) {
      if (StatsKernelName(kernel) == limit) return kernel;
    }
    return kernels.back();
  }();
  return active;
}

void DiffStats::Accumulate(ElementType type, std::span<const std::byte> a, std::span<const std::byte> b) {
  AccumulateWith(ActiveStatsKernel(), type, a, b);
}

void DiffStats::AccumulateWith(StatsKernel kernel, ElementType type, std::span<const std::byte> a,
                               std::span<const std::byte> b) {
  const BlockKernel run = KernelFunction(kernel);
  const std::size_t count = a.size() / ElementSize(type);
  numel += count;
  std::uint32_t wide_a[kBlock];
  std::uint32_t wide_b[kBlock];
  for (std::size_t base = 0; base < count; base += kBlock) {
    const std::size_t n = std::min(kBlock, count - base);
    const std::byte* block_a = a.data() + base * 4;
    const std::byte* block_b = b.data() + base * 4;
    if (type == ElementType::kBFloat16) {
      WidenBlock<ElementType::kBFloat16>(a.data() + base * 2, n, wide_a);
      WidenBlock<ElementType::kBFloat16>(b.data() + base * 2, n, wide_b);
    } else if (type == ElementType::kFloat16) {
      WidenBlock<ElementType::kFloat16>(a.data() + base * 2, n, wide_a);
      WidenBlock<ElementType::kFloat16>(b.data() + base * 2, n, wide_b);
    }
    if (type != ElementType::kFloat32) {
      block_a = reinterpret_cast<const std::byte*>(wide_a);
      block_b = reinterpret_cast<const std::byte*>(wide_b);
    }
    BlockTotals block;
    run(block_a, block_b, n, block);
    AddBlock(*this, block);
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

double RootOf(const CompensatedSum& squares) { return std::sqrt(std::max(0.0, squares.Value())); }

std::optional<double> RelativeL2(const CompensatedSum& squared_diff, const CompensatedSum& squared_a) {
  const double norm = RootOf(squared_a);
  if (norm == 0) return std::nullopt;
  return RootOf(squared_diff) / norm;
}

double DiffStats::l2() const { return RootOf(squared_diff); }

std::optional<double> DiffStats::rel_l2() const { return RelativeL2(squared_diff, squared_a); }

}  // namespace ckpt
