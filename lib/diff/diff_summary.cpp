#include "lib/diff/diff_summary.h"

#include <algorithm>
#include <limits>
#include <map>

namespace ckpt {

double DiffRollup::l2() const { return RootOf(squared_diff); }

std::optional<double> DiffRollup::rel_l2() const { return RelativeL2(squared_diff, squared_a); }

void DiffRollup::Add(const TensorDiff& t) {
  ++counts[static_cast<std::size_t>(t.status)];
  ++tensors;
  if (t.a_squared && t.a) {  // compared with statistics: its dtype has an element size
    squared_a.Merge(*t.a_squared);
    compared_elements += t.a->length / ElementSize(*ElementTypeOf(t.a->dtype));
  }
  if (t.status != TensorStatus::kChanged) return;
  if (!t.stats) {
    ++unmeasured;
    return;
  }
  changed_elements += t.stats->changed;
  non_finite_pairs += t.stats->non_finite_pairs;
  max_abs = std::max(max_abs, t.stats->max_abs);
  squared_diff.Merge(t.stats->squared_diff);
}

std::string_view NamePrefix(std::string_view name, unsigned depth) {
  std::size_t end = 0;
  for (unsigned i = 0; i < depth; ++i) {
    const std::size_t dot = name.find('.', end);
    if (dot == std::string_view::npos) return name;
    end = dot + 1;
  }
  return end == 0 ? name : name.substr(0, end - 1);
}

std::vector<const TensorDiff*> RankedTensors(const std::vector<TensorDiff>& tensors) {
  std::vector<const TensorDiff*> order;
  order.reserve(tensors.size());
  for (const TensorDiff& t : tensors) order.push_back(&t);
  auto rank = [](const TensorDiff* t) {
    if (t->status != TensorStatus::kChanged) return -1.0;
    if (!t->stats || t->stats->non_finite_pairs > 0) return std::numeric_limits<double>::infinity();
    auto rel = t->stats->rel_l2();
    return rel ? *rel : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const TensorDiff* x, const TensorDiff* y) { return rank(x) > rank(y); });
  return order;
}

DiffSummary SummarizeDiff(const std::vector<TensorDiff>& tensors, unsigned rollup_depth, std::size_t top) {
  DiffSummary out;
  out.rollup_depth = rollup_depth;
  std::map<std::string, DiffRollup, std::less<>> groups;
  std::map<std::string, DiffRollup, std::less<>> prefixes;
  for (const TensorDiff& t : tensors) {  // name order: sums merge in a fixed order
    out.model.Add(t);
    const std::string& group = t.b ? t.b->group : t.a ? t.a->group : std::string();
    groups[group].Add(t);
    if (rollup_depth > 0) prefixes[std::string(NamePrefix(t.name, rollup_depth))].Add(t);
  }
  for (auto& [key, rollup] : groups) {
    rollup.key = key;
    out.groups.push_back(std::move(rollup));
  }
  for (auto& [key, rollup] : prefixes) {
    rollup.key = key;
    out.prefixes.push_back(std::move(rollup));
  }
  for (const TensorDiff* t : RankedTensors(tensors)) {
    if (out.top.size() >= top || t->status != TensorStatus::kChanged) break;
    out.top.push_back(t);
  }
  return out;
}

}  // namespace ckpt
