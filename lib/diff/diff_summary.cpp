#include "lib/diff/diff_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

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
  for (const TensorDiff& t : tensors) {  // name order: sums merge in a fixed order
    out.model.Add(t);
    const std::string_view group = t.b ? t.b->group : t.a ? t.a->group : std::string_view();
    auto it = groups.find(group);
    if (it == groups.end()) it = groups.emplace(std::string(group), DiffRollup{}).first;
    it->second.Add(t);
  }
  for (auto& [key, rollup] : groups) {
    rollup.key = key;
    out.groups.push_back(std::move(rollup));
  }
  if (rollup_depth > 0) {
    // Tensors sorted by (prefix, name order), then each run summed: one roll-up per distinct
    // prefix and 24 bytes a tensor while sorting. (A map of roll-ups cost 540 bytes a tensor
    // where every tensor has its own prefix: 54 MB for 10^5.)
    std::vector<std::pair<std::string_view, std::size_t>> keyed;
    keyed.reserve(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) keyed.emplace_back(NamePrefix(tensors[i].name, rollup_depth), i);
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t run = 0; run < keyed.size();) {
      DiffRollup rollup;
      rollup.key = std::string(keyed[run].first);
      std::size_t end = run;
      for (; end < keyed.size() && keyed[end].first == keyed[run].first; ++end) rollup.Add(tensors[keyed[end].second]);
      out.prefixes.push_back(std::move(rollup));
      run = end;
    }
  }
  for (const TensorDiff* t : RankedTensors(tensors)) {
    if (out.top.size() >= top || t->status != TensorStatus::kChanged) break;
    out.top.push_back(t);
  }
  return out;
}

}  // namespace ckpt
