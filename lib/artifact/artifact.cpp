#include "lib/artifact/artifact.h"

#include <algorithm>

namespace ckpt {

Location JsonFile::At(std::uint64_t offset, std::string pointer) const {
  Location loc;
  loc.file = name;
  json::LineColumn pos = json::LocateOffset(text, offset);
  loc.line = pos.line;
  loc.column = pos.column;
  loc.json_pointer = std::move(pointer);
  return loc;
}

const StoredTensor* WeightFile::FindTensor(std::string_view tensor_name) const {
  for (const StoredTensor& t : tensors) {
    if (t.name == tensor_name) return &t;
  }
  return nullptr;
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
    if (const json::Value* v = json.doc.root.Find(field)) return json.At(v->offset, pointer);
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

bool Artifact::HasEntry(std::string_view name) const {
  return std::any_of(entries.begin(), entries.end(), [&](const DirectoryEntry& e) { return e.name == name; });
}

}  // namespace ckpt
