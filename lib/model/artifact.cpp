#include "lib/model/artifact.h"

#include <algorithm>
#include <array>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"

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

bool AuditOptions::IsAllowedGroup(std::string_view group) const {
  auto has = [&](const std::vector<std::string>& set) { return std::find(set.begin(), set.end(), group) != set.end(); };
  return has(allowed_groups) || has(extra_allowed_groups);
}

void Artifact::BuildIndexes() {
  weights_by_name_.resize(weights.size());
  for (std::uint32_t i = 0; i < weights_by_name_.size(); ++i) weights_by_name_[i] = i;
  std::sort(weights_by_name_.begin(), weights_by_name_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return weights[a].name < weights[b].name; });
  // Each file's declarations are already sorted by name (its name index): they are merged, in
  // shard order, instead of sorting every name again (a million names sorted twice was 40% of
  // a million-tensor audit). A merge is stable: one name's declarations stay in shard order.
  tensor_index_.clear();
  std::size_t total = 0;
  for (const WeightFile& wf : weights) total += wf.tensors.size();
  tensor_index_.reserve(total);
  std::vector<std::size_t> run_ends;
  for (std::uint32_t f = 0; f < weights.size(); ++f) {
    WeightFile& wf = weights[f];
    const bool indexed = wf.by_name.size() == wf.tensors.size() &&
                         std::is_sorted(wf.by_name.begin(), wf.by_name.end(), [&](std::uint32_t a, std::uint32_t b) {
                           return wf.tensors[a].name < wf.tensors[b].name;
                         });
    if (!indexed) wf.BuildNameIndex();
    for (std::uint32_t t : wf.by_name) tensor_index_.push_back({f, t});
    run_ends.push_back(tensor_index_.size());
  }
  const auto by_name = [&](const TensorRef& a, const TensorRef& b) { return NameOf(a) < NameOf(b); };
  while (run_ends.size() > 1) {  // adjacent runs merged pairwise: log(files) passes
    std::vector<std::size_t> merged;
    for (std::size_t i = 0; i < run_ends.size(); i += 2) {
      if (i + 1 == run_ends.size()) {
        merged.push_back(run_ends[i]);
        break;
      }
      const std::size_t begin = i == 0 ? 0 : run_ends[i - 1];
      const auto at = [&](std::size_t offset) { return tensor_index_.begin() + static_cast<std::ptrdiff_t>(offset); };
      std::inplace_merge(at(begin), at(run_ends[i]), at(run_ends[i + 1]), by_name);
      merged.push_back(run_ends[i + 1]);
    }
    run_ends = std::move(merged);
  }
}

std::pair<std::vector<Artifact::TensorRef>::const_iterator, std::vector<Artifact::TensorRef>::const_iterator>
Artifact::Declarations(std::string_view name) const {
  auto first = std::lower_bound(tensor_index_.begin(), tensor_index_.end(), name,
                                [&](const TensorRef& r, std::string_view key) { return NameOf(r) < key; });
  auto last = first;
  while (last != tensor_index_.end() && NameOf(*last) == name) ++last;
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

void Artifact::ForEachRepeatedName(const std::function<void(std::span<const StoredRef>)>& visit) const {
  std::vector<StoredRef> run;
  for (std::size_t i = 0; i < tensor_index_.size();) {
    std::size_t end = i + 1;
    while (end < tensor_index_.size() && NameOf(tensor_index_[end]) == NameOf(tensor_index_[i])) ++end;
    if (end - i > 1) {
      run.clear();
      for (std::size_t k = i; k < end; ++k) {
        const WeightFile& wf = weights[tensor_index_[k].file];
        run.push_back({&wf, &wf.tensors[tensor_index_[k].tensor]});
      }
      visit(run);
    }
    i = end;
  }
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

namespace {

// Paths the root digest leaves out at the folder's top (model_signing's defaults).
bool LeftOutOfRootDigest(std::string_view name) {
  return name.starts_with(".git/") || name.starts_with(".github/") || name == ".gitattributes" ||
         name == ".gitignore" || name == "model.sig";
}

// POSIX paths compared component by component, each by its UTF-8 bytes ("a/b" before "a-b").
bool PathBefore(std::string_view a, std::string_view b) {
  while (true) {
    const std::size_t sa = a.find('/');
    const std::size_t sb = b.find('/');
    const std::string_view ca = a.substr(0, sa);
    const std::string_view cb = b.substr(0, sb);
    if (ca != cb) return ca < cb;
    if (sa == std::string_view::npos || sb == std::string_view::npos) return sa == std::string_view::npos && sb != sa;
    a.remove_prefix(sa + 1);
    b.remove_prefix(sb + 1);
  }
}

}  // namespace

std::vector<const WeightFile*> Artifact::ListedWeightFiles() const {
  std::vector<const WeightFile*> out;
  out.reserve(weights.size() + (model ? model->analysed.size() + model->other_weights.size() : 0));
  for (const WeightFile& wf : weights) out.push_back(&wf);
  if (model) {
    for (const WeightFile& wf : model->analysed) out.push_back(&wf);
    for (const WeightFile& wf : model->other_weights) out.push_back(&wf);
  }
  return out;
}

Artifact::PinTarget Artifact::PinnedValue() const {
  PinTarget target;
  if (InputKinds::Lensemble().Has(kind)) {
    target.what = "content hash";
    target.key = "content-hash";
    target.value = computed_hash;
    target.not_computed_reason = hash_not_computed_reason;
    return target;
  }
  if (kind != InputKind::kModelFolder) {
    target.what = "SHA-256 of the file";
    target.key = "file-sha256";
    if (files.empty()) {
      target.not_computed_reason = "not computed (the file was not read)";
    } else if (!files.front().sha256) {
      target.not_computed_reason =
          policy.compute_hash ? "not computed (the file was not read whole)" : "not computed (--no-hash)";
    } else {
      target.value = files.front().sha256;
    }
    return target;
  }
  target.what = "root digest";
  target.key = "root-digest";
  std::vector<const AdmittedFile*> digested;
  for (const AdmittedFile& f : files) {
    if (LeftOutOfRootDigest(f.name)) continue;
    if (!f.sha256) {
      target.not_computed_reason = policy.compute_hash ? "not computed ('" + f.name + "' was not read whole)"
                                                       : std::string("not computed (--no-hash)");
      return target;
    }
    digested.push_back(&f);
  }
  std::sort(digested.begin(), digested.end(),
            [](const AdmittedFile* a, const AdmittedFile* b) { return PathBefore(a->name, b->name); });
  Sha256 root;
  for (const AdmittedFile* f : digested) {
    // The raw 32-byte digest of each file, from its lowercase hex.
    std::array<std::byte, 32> raw{};
    for (std::size_t i = 0; i < raw.size() && 2 * i + 1 < f->sha256->size(); ++i) {
      raw[i] = static_cast<std::byte>((HexDigit((*f->sha256)[2 * i]) << 4) | HexDigit((*f->sha256)[2 * i + 1]));
    }
    root.Update(std::span<const std::byte>(raw));
  }
  target.value = root.FinalHex();
  return target;
}

}  // namespace ckpt
