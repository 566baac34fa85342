#include "lib/artifact/artifact.h"

#include <algorithm>

namespace ckpt {

Location JsonFile::At(std::uint64_t offset, std::string pointer) const {
  Location loc;
  loc.file = name;
  json::LineColumn pos = positions.Locate(text(), offset);
  loc.line = pos.line;
  loc.column = pos.column;
  loc.json_pointer = std::move(pointer);
  return loc;
}

void WeightFile::BuildNameIndex() {
  by_name.resize(tensors.size());
  for (std::uint32_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return tensors[a].name < tensors[b].name; });
}

const StoredTensor* WeightFile::FindTensor(std::string_view tensor_name) const {
  auto it = std::lower_bound(by_name.begin(), by_name.end(), tensor_name,
                             [&](std::uint32_t i, std::string_view key) { return tensors[i].name < key; });
  return (it != by_name.end() && tensors[*it].name == tensor_name) ? &tensors[*it] : nullptr;
}

Location WeightFile::TensorLocation(const StoredTensor& tensor) const {
  Location loc;
  loc.file = name;
  loc.byte_offset = tensor.entry_offset;
  loc.json_pointer = "/" + json::EscapePointerToken(tensor.name);
  loc.tensor = tensor.name;
  return loc;
}

Location Header::FieldLocation(std::string_view field) const {
  std::string pointer = "/" + json::EscapePointerToken(field);
  if (json.parsed) {
    if (auto v = json.doc.root().Find(field)) return json.At(v->offset(), pointer);
    return json.At(json.doc.value_begin, "");
  }
  Location loc;
  loc.file = json.name;
  return loc;
}

void Header::ForEachTopLevelKey(const std::function<void(std::string_view, std::uint64_t)>& fn) const {
  if (!json.parsed) return;
  for (const json::Member& m : json.doc.root().Members()) fn(m.key, m.key_offset);
}

bool Header::HasTopLevelKey(std::string_view key) const { return json.parsed && json.doc.root().Find(key).has_value(); }

bool Policy::IsAllowedGroup(std::string_view group) const {
  auto has = [&](const std::vector<std::string>& set) { return std::find(set.begin(), set.end(), group) != set.end(); };
  return has(allowed_groups) || has(extra_allowed_groups);
}

void Artifact::BuildIndexes() {
  weights_by_name_.resize(weights.size());
  for (std::uint32_t i = 0; i < weights_by_name_.size(); ++i) weights_by_name_[i] = i;
  std::sort(weights_by_name_.begin(), weights_by_name_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return weights[a].name < weights[b].name; });
  tensor_index_.clear();
  std::size_t total = 0;
  for (const WeightFile& wf : weights) total += wf.tensors.size();
  tensor_index_.reserve(total);
  for (std::uint32_t f = 0; f < weights.size(); ++f) {
    for (std::uint32_t t = 0; t < weights[f].tensors.size(); ++t) tensor_index_.push_back({f, t});
  }
  std::sort(tensor_index_.begin(), tensor_index_.end(), [&](const TensorRef& a, const TensorRef& b) {
    const std::string& x = weights[a.file].tensors[a.tensor].name;
    const std::string& y = weights[b.file].tensors[b.tensor].name;
    return x != y ? x < y : a.file < b.file;
  });
}

std::pair<std::vector<Artifact::TensorRef>::const_iterator, std::vector<Artifact::TensorRef>::const_iterator>
Artifact::Declarations(std::string_view name) const {
  auto name_of = [&](const TensorRef& r) -> std::string_view { return weights[r.file].tensors[r.tensor].name; };
  auto first = std::lower_bound(tensor_index_.begin(), tensor_index_.end(), name,
                                [&](const TensorRef& r, std::string_view key) { return name_of(r) < key; });
  auto last = first;
  while (last != tensor_index_.end() && name_of(*last) == name) ++last;
  return {first, last};
}

const WeightFile* Artifact::FindWeightFile(std::string_view name) const {
  auto it = std::lower_bound(weights_by_name_.begin(), weights_by_name_.end(), name,
                             [&](std::uint32_t i, std::string_view key) { return weights[i].name < key; });
  return (it != weights_by_name_.end() && weights[*it].name == name) ? &weights[*it] : nullptr;
}

Artifact::StoredRef Artifact::FindStored(std::string_view name) const {
  auto [first, last] = Declarations(name);
  if (first == last) return {};
  return {&weights[first->file], &weights[first->file].tensors[first->tensor]};
}

std::optional<Artifact::ReadableTensor> Artifact::FindReadableTensor(std::string_view name) const {
  auto [first, last] = Declarations(name);
  for (auto it = first; it != last; ++it) {
    const WeightFile& wf = weights[it->file];
    if (wf.valid && wf.file) return ReadableTensor{&wf, &wf.tensors[it->tensor]};
  }
  return std::nullopt;
}

bool Artifact::HasEntry(std::string_view name) const {
  return std::any_of(entries.begin(), entries.end(), [&](const DirectoryEntry& e) { return e.name == name; });
}

}  // namespace ckpt
