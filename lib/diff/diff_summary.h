// What a reviewer reads first in a diff: the whole model's movement, then per manifest group
// and per name prefix (--rollup N components, "encoder.layers.3"), counts by status, and the
// tensors that moved most. A pure function of the compared tensors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/diff/diff.h"

namespace ckpt {

inline constexpr std::size_t kTensorStatusCount = 6;

/// The movement of a set of tensors: L2 = sqrt(sum of squared differences over the changed
/// tensors' finite pairs), relative to ||A|| over every tensor compared (changed or not).
struct DiffRollup {
  std::string key;                                         ///< group name, name prefix, or "" for the whole model
  std::array<std::uint64_t, kTensorStatusCount> counts{};  ///< by TensorStatus
  std::uint64_t tensors = 0;
  std::uint64_t compared_elements = 0;  ///< elements of compared tensors with statistics
  std::uint64_t changed_elements = 0;   ///< elements whose bits differ
  std::uint64_t non_finite_pairs = 0;   ///< changed elements involving NaN or Inf (not in L2)
  std::uint64_t unmeasured = 0;         ///< changed tensors of a dtype without statistics
  double max_abs = 0;
  CompensatedSum squared_diff;
  CompensatedSum squared_a;
  [[nodiscard]] std::uint64_t count(TensorStatus s) const { return counts[static_cast<std::size_t>(s)]; }
  /// Tensors that changed other than in value: re-laid-out, added, removed, unreadable.
  [[nodiscard]] std::uint64_t others() const {
    return count(TensorStatus::kLayoutChanged) + count(TensorStatus::kAdded) + count(TensorStatus::kRemoved) +
           count(TensorStatus::kUnreadable);
  }
  [[nodiscard]] double l2() const;
  /// nullopt when ||A|| is 0 over the compared tensors (nothing to be relative to).
  [[nodiscard]] std::optional<double> rel_l2() const;
  void Add(const TensorDiff& t);
};

struct DiffSummary {
  DiffRollup model;
  std::vector<DiffRollup> groups;      ///< by manifest group (B's side, else A's), sorted by name
  unsigned rollup_depth = 0;           ///< name components per prefix
  std::vector<DiffRollup> prefixes;    ///< by name prefix, sorted
  std::vector<const TensorDiff*> top;  ///< changed tensors that moved most (RankedTensors order)
};

/// The first `depth` '.'-separated components of `name` (all of it when it has fewer).
std::string_view NamePrefix(std::string_view name, unsigned depth);

/// The rank order of a diff's tensors: changed tensors first, most moved first (those whose
/// change cannot be measured, involves NaN/Inf or has an undefined rel_l2 lead), then the
/// rest in name order. Ties keep name order.
std::vector<const TensorDiff*> RankedTensors(const std::vector<TensorDiff>& tensors);

/// The summary of `tensors` (sorted by name, as DiffRun holds them); `top` changed tensors
/// at most.
DiffSummary SummarizeDiff(const std::vector<TensorDiff>& tensors, unsigned rollup_depth, std::size_t top);

}  // namespace ckpt
