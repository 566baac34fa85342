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

bool Policy::IsAllowedGroup(std::string_view group) const {
  auto has = [&](const std::vector<std::string>& set) { return std::find(set.begin(), set.end(), group) != set.end(); };
  return has(allowed_groups) || has(extra_allowed_groups);
}

const WeightFile* Artifact::FindWeightFile(std::string_view name) const {
  for (const WeightFile& w : weights) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::optional<Artifact::ReadableTensor> Artifact::FindReadableTensor(std::string_view name) const {
  for (const WeightFile& wf : weights) {
    if (!wf.valid || !wf.file) continue;
    if (const StoredTensor* t = wf.FindTensor(name)) return ReadableTensor{&wf, t};
  }
  return std::nullopt;
}

bool Artifact::HasEntry(std::string_view name) const {
  return std::any_of(entries.begin(), entries.end(), [&](const DirectoryEntry& e) { return e.name == name; });
}

}  // namespace ckpt
