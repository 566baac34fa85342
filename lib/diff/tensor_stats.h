// Element-wise statistics between two tensors of the same dtype and shape, computed in
// double precision after widening each element exactly (float16 and bfloat16 widen
// exactly; so does float32). Sums are compensated (Neumaier) and partial results merge in
// a fixed order, so figures do not depend on how work was split across threads.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ckpt {

enum class ElementType { kFloat32, kBFloat16, kFloat16 };
std::optional<ElementType> ElementTypeOf(std::string_view manifest_dtype);
std::size_t ElementSize(ElementType type);
/// The exact double value of one stored element (little-endian bytes).
double WidenElement(ElementType type, const std::byte* bytes);

/// The implementations of the statistics loop. Each performs the same IEEE operations in
/// the same order, so every kernel gives bit-identical figures; they differ only in speed.
enum class StatsKernel { kPortable, kAvx2, kAvx512 };
std::string_view StatsKernelName(StatsKernel kernel);
/// The kernels this machine can run, slowest first (kPortable always).
std::vector<StatsKernel> AvailableStatsKernels();
/// The kernel Accumulate uses: the fastest available, or the one named by the environment
/// variable CKPT_STATS_KERNEL (portable, avx2, avx512) when this machine has it.
StatsKernel ActiveStatsKernel();

/// Compensated sum (Neumaier): error independent of the number of terms to first order.
struct CompensatedSum {
  double sum = 0;
  double compensation = 0;
  void Add(double x);
  void Merge(const CompensatedSum& other);
  [[nodiscard]] double Value() const { return sum + compensation; }
};

/// sqrt of a sum of squares (never negative, whatever rounding left in the sum).
double RootOf(const CompensatedSum& squares);
/// sqrt(squared_diff) / sqrt(squared_a): how far B moved relative to A's size; nullopt when
/// ||a|| = 0. One definition for a tensor and for every roll-up of tensors.
std::optional<double> RelativeL2(const CompensatedSum& squared_diff, const CompensatedSum& squared_a);

struct DiffStats {
  std::uint64_t numel = 0;
  std::uint64_t changed = 0;           ///< elements whose bits differ
  double max_abs = 0;                  ///< max |b - a| over elements finite on both sides
  CompensatedSum squared_diff;         ///< sum of (b - a)^2, same elements
  CompensatedSum squared_a;            ///< sum of a^2 over finite a
  std::uint64_t nan_appeared = 0;      ///< B is NaN where A was finite
  std::uint64_t inf_appeared = 0;      ///< B is +-Inf where A was finite
  std::uint64_t non_finite_pairs = 0;  ///< changed elements left out of max_abs and l2

  /// Accumulates `a` and `b` (same length, whole elements of `type`).
  void Accumulate(ElementType type, std::span<const std::byte> a, std::span<const std::byte> b);
  /// The same with a chosen kernel (tests and benchmarks).
  void AccumulateWith(StatsKernel kernel, ElementType type, std::span<const std::byte> a, std::span<const std::byte> b);
  void Merge(const DiffStats& other);
  [[nodiscard]] double l2() const;
  /// l2 / ||a||; nullopt when ||a|| = 0.
  [[nodiscard]] std::optional<double> rel_l2() const;
};

}  // namespace ckpt
