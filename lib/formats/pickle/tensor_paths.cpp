// The tensors a pickle's root holds, named by the path a loader's state dict gives them.
#include <algorithm>

#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/pickle/pickle_text.h"

namespace ckpt::pickle {

std::vector<NamedTensor> Analyser::ListTensors(ValueId root, std::uint64_t offset, std::vector<std::string>* others) {
  constexpr std::size_t kMaxDepth = 256;
  constexpr std::size_t kMaxOthers = 100'000;
  // A path is a chain of parts kept by reference (a str key of the pickle, an int key, a list
  // index) and spelled only for what is listed, in a second walk once the first has measured
  // every name: tied values under long memoized keys would otherwise spell gigabytes of names
  // from a few kilobytes of pickle, and a listing past its budget spells none.
  enum class PartKind : std::uint8_t { kRoot, kText, kIntKey, kIndex };
  struct Part {
    std::uint64_t length = 0;  ///< of the whole path this part ends
    std::uint32_t parent = 0;  ///< index into `entered` (0: before the root)
    std::uint32_t part = 0;    ///< a text index, an int key's ValueId, or a list index
    PartKind kind = PartKind::kRoot;
  };
  std::vector<Part> entered;  // the containers on the current path, each with its path (a stack)
  auto spell_part = [&](const Part& p) -> std::string {
    switch (p.kind) {
      case PartKind::kText:
        return texts_[p.part];
      case PartKind::kIntKey:
        return std::to_string(NumberOf(values_[p.part]));
      case PartKind::kIndex:
        return std::to_string(p.part);
      case PartKind::kRoot:
        break;
    }
    return "";
  };
  auto with_length = [&](Part p) {
    const Part& parent = entered[p.parent];
    const std::uint64_t own = p.kind == PartKind::kText ? texts_[p.part].size() : spell_part(p).size();
    p.length = parent.length + (parent.kind == PartKind::kRoot ? 0 : 1) + own;  // the root's children: no dot
    return p;
  };
  auto spell = [&](const Part& last) {
    std::string path;
    path.reserve(static_cast<std::size_t>(last.length));
    std::vector<const Part*> chain;
    for (const Part* at = &last; at->kind != PartKind::kRoot; at = &entered[at->parent]) chain.push_back(at);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (it != chain.rbegin()) path += '.';
      path += spell_part(**it);
    }
    return path;
  };
  std::vector<NamedTensor> out;
  std::unordered_map<std::size_t, std::vector<std::uint32_t>> listed;  // name hash -> indexes into out
  std::size_t reported = 0;
  auto report = [&](std::string message) {
    if (reported++ < 16) Report(Diag::kPickleTensorName, offset, std::move(message));
  };
  // One walk of the object: the first measures (values visited, bytes of the names it would
  // spell) against the budgets, the second spells the names and judges them.
  auto walk = [&](bool measuring) {
    entered.assign(1, Part{});
    struct Frame {
      ValueId id;
      Part path;
      bool exit;  // leaving a container: it is no longer on the path
    };
    std::vector<Frame> todo{{root, Part{}, false}};
    std::set<ValueId> on_path;  // cycles are cut: a container is not entered inside itself
    std::size_t others_listed = 0;
    auto charge = [&](std::uint64_t length) {
      budget_.path_bytes += length;
      if (budget_.path_bytes <= budget_.max_path_bytes) return true;
      budget_.exceeded = true;
      Report(Diag::kPickleBudgetExceeded, offset,
             "Listing tensors spells more than " + DescribeByteLimit(budget_.max_path_bytes) +
                 " of path names (values reached many ways under long names): nothing is listed.");
      return false;
    };
    while (!todo.empty()) {
      Frame f = todo.back();
      todo.pop_back();
      if (f.exit) {  // its children were all walked: its path is no longer referred to
        on_path.erase(f.id);
        entered.pop_back();
        continue;
      }
      if (measuring && ++budget_.values > budget_.max_values) {
        budget_.exceeded = true;
        Report(Diag::kPickleBudgetExceeded, offset,
               "Listing tensors visits more than " + DescribeLimit(budget_.max_values) +
                   " (path, value) pairs (shared values reached many ways): nothing is listed.");
        return false;
      }
      if (values_[f.id].kind == Kind::kEstimator) {
        // A scikit-learn object's arrays are its attributes: named by them, as a dict's by keys.
        const EstimatorValue& e = estimators_[values_[f.id].aux];
        if (!e.state) continue;
        f.id = *e.state;
      }
      const Value& v = values_[f.id];
      const bool container = v.kind == Kind::kDict || v.kind == Kind::kList || v.kind == Kind::kTuple;
      if (v.kind == Kind::kTensor || (!container && others != nullptr && others_listed < kMaxOthers)) {
        if (v.kind != Kind::kTensor) ++others_listed;
        if (measuring) {
          if (!charge(f.path.length)) return false;
        } else if (v.kind != Kind::kTensor) {
          others->push_back(spell(f.path));
        } else {
          std::string name = spell(f.path);
          auto& same_hash = listed[std::hash<std::string>{}(name)];
          const auto same =
              std::find_if(same_hash.begin(), same_hash.end(), [&](std::uint32_t i) { return out[i].name == name; });
          if (same == same_hash.end()) {
            same_hash.push_back(static_cast<std::uint32_t>(out.size()));
            out.push_back({std::move(name), v.aux});
          } else if (out[*same].tensor != v.aux) {
            report("Two paths in the object give the tensor name " + Quoted(name) +
                   " to different tensors: a loader keeps one of them.");
          }
        }
      }
      if (!container || on_path.contains(f.id)) continue;
      if (on_path.size() >= kMaxDepth) {
        if (!measuring) {
          report("The object nests deeper than " + std::to_string(kMaxDepth) + " levels under " +
                 Quoted(spell(f.path)) + ": tensors below are not listed.");
        }
        continue;
      }
      on_path.insert(f.id);
      todo.push_back({f.id, Part{}, true});
      const auto here = static_cast<std::uint32_t>(entered.size());
      entered.push_back(f.path);
      const auto& items = ItemsOf(v);
      if (v.kind == Kind::kDict) {
        for (std::size_t i = items.size(); i >= 2; i -= 2) {
          const Value& key = values_[items[i - 2]];
          if (key.kind == Kind::kStr) {
            todo.push_back({items[i - 1], with_length({0, here, key.aux, PartKind::kText}), false});
          } else if (key.kind == Kind::kInt) {
            todo.push_back({items[i - 1], with_length({0, here, items[i - 2], PartKind::kIntKey}), false});
          } else if (!measuring) {
            report("The object has a dict key " + Render(items[i - 2]) + " under " + Quoted(spell(f.path)) +
                   ", neither a str nor an int: tensors under it have no name.");
          }
        }
      } else {
        for (std::size_t i = items.size(); i-- > 0;) {
          todo.push_back({items[i], with_length({0, here, static_cast<std::uint32_t>(i), PartKind::kIndex}), false});
        }
      }
    }
    return true;
  };
  if (budget_.exceeded || !walk(/*measuring=*/true)) return out;
  walk(/*measuring=*/false);
  return out;
}

}  // namespace ckpt::pickle
