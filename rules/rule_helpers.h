// Small read-only views of the artifact shared by several rule checks.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lib/chain/chain_graph.h"
#include "lib/core/text.h"
#include "lib/json/json_value.h"
#include "lib/model/artifact.h"

namespace ckpt::rules {

/// The header when its fields were read (schema version known), else nullptr.
inline const Header* ReadableHeader(const Artifact& artifact) {
  return (artifact.header && artifact.header->version_supported) ? &*artifact.header : nullptr;
}

/// The manifest when it was read, else nullptr.
inline const std::vector<ManifestEntry>* Manifest(const Artifact& artifact) {
  const Header* h = ReadableHeader(artifact);
  return (h && h->tensor_manifest) ? &*h->tensor_manifest : nullptr;
}

/// True when every weight file's header was read, so its tensor list is complete.
inline bool AllWeightHeadersRead(const Artifact& artifact) {
  if (artifact.weights.empty()) return false;
  for (const WeightFile& wf : artifact.weights) {
    if (!wf.header_read) return false;
  }
  return true;
}

/// Location of a manifest entry, or of one of its fields.
inline Location ManifestLocation(const Header& header, const ManifestEntry& entry, std::string_view field = {}) {
  std::string pointer = entry.Pointer();
  std::uint64_t offset = entry.offset;
  if (!field.empty()) {
    pointer += "/" + std::string(field);
    const json::Value item(&header.json.doc, entry.tape_index);
    if (auto v = item.Find(field)) offset = v->offset();
  }
  Location loc = header.json.At(offset, pointer);
  loc.tensor = entry.name;
  return loc;
}

/// Location of tensor `name`'s manifest entry in `artifact`'s header.json (line and column),
/// or of header.json itself when the manifest does not list it. `artifact.path` is set.
inline Location TensorManifestLocation(const Artifact& artifact, const std::string& name) {
  Location loc;
  loc.file = "header.json";
  if (const std::vector<ManifestEntry>* manifest = Manifest(artifact)) {
    for (const ManifestEntry& e : *manifest) {
      if (e.name == name) {
        loc = ManifestLocation(*artifact.header, e, "name");
        break;
      }
    }
  }
  loc.artifact = artifact.path;
  loc.tensor = name;
  return loc;
}

/// Where tensor `name`'s bytes are in `artifact` (its weight file, offset and length), for a
/// finding about the tensor's values; its manifest entry when no weight file holds it.
inline Location TensorBytesLocation(const Artifact& artifact, const std::string& name) {
  if (const Artifact::StoredRef stored = artifact.FindStored(name);
      stored.tensor != nullptr && stored.tensor->complete) {
    Location loc;
    loc.artifact = artifact.path;
    loc.file = stored.file->name;
    loc.byte_offset = stored.tensor->data_offset;
    loc.byte_length = stored.tensor->data_length;
    loc.tensor = name;
    return loc;
  }
  if (artifact.model) {
    for (const WeightFile& wf : artifact.model->other_weights) {
      for (const StoredTensor& t : wf.tensors) {
        if (t.name != name || !t.complete) continue;
        Location loc;
        loc.artifact = artifact.path;
        loc.file = wf.name;
        loc.byte_offset = t.data_offset;
        loc.byte_length = t.data_length;
        loc.tensor = name;
        return loc;
      }
    }
  }
  return TensorManifestLocation(artifact, name);
}

/// The first weight file that declares `name`, with its entry.
using StoredRef = Artifact::StoredRef;
inline StoredRef FindStored(const Artifact& artifact, std::string_view name) { return artifact.FindStored(name); }

/// A set of names viewed in place: a sorted vector of views, 16 bytes a name (a std::set
/// costs three times that, which matters at 10^6 tensors).
class NameSet {
 public:
  void Add(std::string_view name) { names_.push_back(name); }
  void Seal() { std::sort(names_.begin(), names_.end()); }
  [[nodiscard]] bool Contains(std::string_view name) const {
    return std::binary_search(names_.begin(), names_.end(), name);
  }

 private:
  std::vector<std::string_view> names_;
};

/// "[2, 3]"
inline std::string ShapeText(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The first 12 hex digits: how reports name a hash in a sentence.
inline std::string ShortHash(const std::string& hash) { return hash.substr(0, 12); }

/// "round 3 at path" for chain messages (no parentheses: messages add their own).
inline std::string NodeLabel(const ChainNode& node) {
  return (node.round_index ? "round " + std::to_string(*node.round_index) : std::string("round ?")) + " at " +
         node.path;
}

/// Calls fn(child_index, child, parent) for every resolved parent link whose child is in scope.
template <class Fn>
void ForEachLink(const ChainGraph& graph, Fn fn) {
  for (std::size_t i : graph.scope) {
    if (graph.parent_of[i]) fn(i, graph.nodes[i], graph.nodes[*graph.parent_of[i]]);
  }
}

inline Location FileLocation(std::string file) {
  Location loc;
  loc.file = std::move(file);
  return loc;
}

// ---- model folders (inputs.md section 4)

/// The folder part of a path in a model folder ("" at its root).
inline std::string FolderOf(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

/// `name` inside `folder`.
inline std::string InFolder(const std::string& folder, std::string_view name) {
  return folder.empty() ? std::string(name) : folder + "/" + std::string(name);
}

/// A weight_map value that names a file in the index's own folder: no separator, no
/// parent, no drive, no NUL.
inline bool IsBareFileName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos &&
         !(name.size() >= 2 && name[1] == ':');
}

/// The weight files an index maps (each once, in path order), bare names only.
/// O(files log weights): the index's distinct file names were collected when it was read.
inline std::vector<const WeightFile*> MappedShards(const Artifact& artifact, const ModelIndex& index) {
  std::vector<const WeightFile*> out;
  if (!index.weight_map) return out;
  for (const std::string& file : index.weight_map->files()) {
    if (!IsBareFileName(file)) continue;
    if (const WeightFile* wf = artifact.FindWeightFile(InFolder(index.folder, file))) out.push_back(wf);
  }
  std::sort(out.begin(), out.end(), [](const WeightFile* a, const WeightFile* b) { return a->name < b->name; });
  return out;
}

/// The tensor names the pickle analysis listed for the file a pickle index maps as `file`
/// (pytorch_model.bin.index.json); nullptr when no analysed pickle-based file has that name.
inline const std::vector<std::string>* PickleShardTensors(const Artifact& artifact, const ModelIndex& index,
                                                          std::string_view file) {
  if (!artifact.model || !IsBareFileName(file)) return nullptr;
  auto it = artifact.model->pickle_tensors.find(InFolder(index.folder, file));
  return it == artifact.model->pickle_tensors.end() ? nullptr : &it->second;
}

/// Location of a weight_map entry's key (or its value) in an index.
inline Location MappingLocation(const ModelIndex& index, const ShardIndex::Mapping& m, bool value = false) {
  Location loc = index.json.At(value ? m.value_offset : m.offset, "/weight_map/" + json::EscapePointerToken(m.tensor));
  loc.tensor = m.tensor;
  return loc;
}

}  // namespace ckpt::rules
