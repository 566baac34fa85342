#include "lib/convert/conversion_plan.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/core/unicode.h"
#include "lib/json/json_writer.h"

namespace ckpt::convert {
namespace {

// safetensors' Dtype enum in declaration order (v0.8.0): `prepare` sorts by it, descending.
constexpr std::string_view kDtypeOrder[] = {"BOOL",    "F4",      "F6_E2M3", "F6_E3M2", "U8",  "I8",   "F8_E5M2",
                                            "F8_E4M3", "F8_E8M0", "I16",     "U16",     "F16", "BF16", "I32",
                                            "U32",     "F32",     "C64",     "F64",     "I64", "U64"};

std::optional<std::size_t> DtypeRank(std::string_view token) {
  for (std::size_t i = 0; i < std::size(kDtypeOrder); ++i) {
    if (kDtypeOrder[i] == token) return i;
  }
  return std::nullopt;
}

std::string Shape(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// The first component of a name, and whether any component is an action head (as written,
// after NFKC_Casefold, or by confusable skeleton: the residency rule's three comparisons).
bool IsActionHead(const std::string& name, const std::vector<std::string>& patterns) {
  auto components = [](std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = std::min(text.find('.', start), text.size());
      out.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    return out;
  };
  std::vector<std::string> forms = {name};
  if (auto folded = NfkcCasefold(name)) {
    forms.push_back(*folded);
    if (auto skeleton = ConfusableSkeleton(*folded)) forms.push_back(*skeleton);
  }
  for (const std::string& pattern : patterns) {
    std::vector<std::string> wanted = {pattern};
    if (auto folded = NfkcCasefold(pattern)) {
      wanted.push_back(*folded);
      if (auto skeleton = ConfusableSkeleton(*folded)) wanted.push_back(*skeleton);
    }
    for (const std::string& form : forms) {
      for (const std::string& component : components(form)) {
        std::string lower = component;
        for (char& c : lower) {
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        if (std::find(wanted.begin(), wanted.end(), lower) != wanted.end()) return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string SafetensorsHeader(const std::vector<PlannedTensor>& tensors,
                              const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string out = "{\"__metadata__\":{";
  for (std::size_t i = 0; i < metadata.size(); ++i) {
    out += (i ? "," : "") + json::QuoteString(metadata[i].first) + ":" + json::QuoteString(metadata[i].second);
  }
  out += "}";
  for (const PlannedTensor& t : tensors) {
    out += "," + json::QuoteString(t.name) + ":{\"dtype\":\"" + t.dtype + "\",\"shape\":" + Shape(t.shape) +
           ",\"data_offsets\":[" + std::to_string(t.output_offset) + "," + std::to_string(t.output_offset + t.size) +
           "]}";
  }
  out += "}";
  out.append((8 - out.size() % 8) % 8, ' ');  // the reference pads the header to 8 bytes
  return out;
}

std::optional<Plan> PlanConversion(const WeightFile& file, DiagnosticSink& sink, const LensembleRules* lensemble,
                                   const std::string* select, bool copy_aliases) {
  const FileReporter report(file.name, sink);
  if (!file.pickle || file.pickle->sources.size() != file.tensors.size()) {
    report(Diag::kConvertStorageMissing, 0, "The checkpoint lists no tensor whose bytes can be located.");
    return std::nullopt;
  }
  const PickleFacts& facts = *file.pickle;
  // --select: the chosen sub-dict's tensors, renamed to start at its root.
  const std::vector<StoredTensor>* all_tensors = &file.tensors;
  const std::vector<PickleFacts::TensorSource>* all_sources = &facts.sources;
  std::vector<StoredTensor> selected_tensors;
  std::vector<PickleFacts::TensorSource> selected_sources;
  std::vector<std::string> left_out;
  if (select != nullptr) {
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
      const StoredTensor& t = file.tensors[i];
      if (!t.name.starts_with(*select) || t.name.size() == select->size()) {
        left_out.push_back(t.name);
        continue;
      }
      selected_tensors.push_back(t);
      selected_tensors.back().name = t.name.substr(select->size());
      selected_sources.push_back(facts.sources[i]);
    }
    if (selected_tensors.empty()) {
      report(Diag::kConvertStorageMissing, 0,
             "No tensor of the checkpoint is named " + QuoteForMessage(*select) + "...: --select chose nothing (" +
                 std::to_string(file.tensors.size()) + " tensors, none under that prefix).");
      return std::nullopt;
    }
    all_tensors = &selected_tensors;
    all_sources = &selected_sources;
  }
  const std::vector<StoredTensor>& tensors = *all_tensors;
  const std::vector<PickleFacts::TensorSource>& sources = *all_sources;
  bool refused = false;
  auto refuse = [&](Diag kind, const StoredTensor& t, std::string message) {
    Location at;
    at.file = file.name;
    at.byte_offset = t.entry_offset;
    at.tensor = t.name;
    sink.Report(kind, std::move(at), std::move(message));
    refused = true;
  };
  if (facts.big_endian) {
    for (const StoredTensor& t : tensors) {
      refuse(Diag::kConvertBigEndian, t,
             "Tensor " + QuoteForMessage(t.name) +
                 " is stored big-endian (the byteorder record says so): its bytes are not what safetensors means.");
    }
  }
  struct Candidate {
    const StoredTensor* tensor;
    const PickleFacts::TensorSource* source;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const StoredTensor& t = tensors[i];
    const PickleFacts::TensorSource& s = sources[i];
    const std::string name = QuoteForMessage(t.name);
    if (!DtypeRank(t.dtype) || t.element == Dtype::kUnknown) {
      refuse(Diag::kConvertDtypeUnsupported, t,
             "Tensor " + name + " is " + t.dtype + ", which safetensors cannot name.");
      continue;
    }
    if (t.conj || t.neg) {
      refuse(Diag::kConvertMathBit, t,
             "Tensor " + name + " carries torch's " + (t.conj ? "conjugate" : "negative") +
                 " bit: its stored bytes are not its values.");
      continue;
    }
    if (!s.contiguous) {
      refuse(Diag::kConvertNotContiguous, t,
             "Tensor " + name + " " + Shape(t.shape) + " has strides " + Shape(s.stride) +
                 ", not row-major: its values are not one run of bytes.");
      continue;
    }
    if (!s.has_storage || !s.record) {
      refuse(Diag::kConvertStorageMissing, t, "Tensor " + name + " has no stored bytes in the checkpoint.");
      continue;
    }
    if (lensemble != nullptr) {
      const std::string group = t.name.substr(0, t.name.find('.'));
      if (t.dtype != "F32" && t.dtype != "BF16" && t.dtype != "F16") {
        refuse(Diag::kConvertGroupRefused, t,
               "Tensor " + name + " is " + t.dtype + "; a Lensemble artifact carries F32, BF16 and F16 tensors only.");
        continue;
      }
      if (IsActionHead(t.name, lensemble->action_head_patterns)) {
        refuse(Diag::kConvertGroupRefused, t,
               "Tensor " + name + " is a per-embodiment action head; it must never appear in a shared artifact.");
        continue;
      }
      if (std::find(lensemble->groups.begin(), lensemble->groups.end(), group) == lensemble->groups.end()) {
        refuse(
            Diag::kConvertGroupRefused, t,
            "Tensor " + name + " is in group " + QuoteForMessage(group) + ", not one of the artifact's param groups.");
        continue;
      }
    }
    candidates.push_back({&t, &s});
  }

  // Exact aliases (same storage, offset, dtype, shape and strides) are one tensor, kept under
  // the name that sorts first by UTF-8 bytes (or, with `copy_aliases`, a copy under each name).
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.tensor->name < b.tensor->name; });
  using Key =
      std::tuple<std::uint32_t, std::uint64_t, std::string, std::vector<std::uint64_t>, std::vector<std::uint64_t>>;
  std::map<Key, const Candidate*> kept_by_key;
  std::vector<const Candidate*> kept;
  std::vector<const Candidate*> copies;  // copy_aliases: written beside the tensor they alias
  Plan plan;
  for (const Candidate& c : candidates) {
    Key key{c.source->storage, c.source->offset, c.tensor->dtype, c.tensor->shape, c.source->stride};
    auto [it, fresh] = kept_by_key.emplace(key, &c);
    if (fresh) {
      kept.push_back(&c);
    } else if (copy_aliases) {
      copies.push_back(&c);
    } else {
      plan.aliases.emplace_back(c.tensor->name, it->second->tensor->name);
    }
  }
  // Disjoint views of one storage are separate tensors; overlapping ones that are not exact
  // aliases cannot be written faithfully.
  std::map<std::uint32_t, std::vector<const Candidate*>> by_storage;
  for (const Candidate* c : kept) by_storage[c->source->storage].push_back(c);
  for (auto& [storage, views] : by_storage) {
    std::sort(views.begin(), views.end(),
              [](const Candidate* a, const Candidate* b) { return a->source->offset < b->source->offset; });
    std::uint64_t end = 0;
    const Candidate* reaching = nullptr;
    for (const Candidate* c : views) {
      if (c->tensor->data_length == 0) continue;
      if (reaching != nullptr && c->source->offset < end) {
        refuse(Diag::kConvertViewsOverlap, *c->tensor,
               "Tensor " + QuoteForMessage(c->tensor->name) + " overlaps tensor " +
                   QuoteForMessage(reaching->tensor->name) + " in one storage without being an exact alias of it.");
      }
      const std::uint64_t this_end = c->source->offset + c->tensor->data_length;
      if (this_end > end) {
        end = this_end;
        reaching = c;
      }
    }
  }
  if (refused) return std::nullopt;
  kept.insert(kept.end(), copies.begin(), copies.end());  // after the overlap check: exact aliases do not overlap

  // Output order: dtype descending in the enum's order, then name bytes.
  std::sort(kept.begin(), kept.end(), [](const Candidate* a, const Candidate* b) {
    return std::tuple(*DtypeRank(b->tensor->dtype), a->tensor->name) <
           std::tuple(*DtypeRank(a->tensor->dtype), b->tensor->name);
  });
  for (const Candidate* c : kept) {
    const StoredTensor& t = *c->tensor;
    const PickleFacts::Record& record = facts.records[*c->source->record];
    PlannedTensor p;
    p.name = t.name;
    p.dtype = t.dtype;
    p.shape = t.shape;
    p.size = t.data_length;
    p.input_offset = record.offset + c->source->offset;
    p.record = record.name;
    // A legacy storage's offset is absolute in the file; a zip record's counts from its start.
    p.record_offset = record.name.starts_with("storage:") ? p.input_offset : c->source->offset;
    p.output_offset = plan.data_size;
    plan.data_size += p.size;
    plan.tensors.push_back(std::move(p));
  }
  std::sort(plan.aliases.begin(), plan.aliases.end());
  plan.not_carried = facts.not_tensors;
  plan.not_carried.insert(plan.not_carried.end(), left_out.begin(), left_out.end());
  std::sort(plan.not_carried.begin(), plan.not_carried.end());
  std::vector<std::pair<std::string, std::string>> metadata = {{"format", "pt"}};
  metadata.insert(metadata.end(), plan.aliases.begin(), plan.aliases.end());
  plan.header = SafetensorsHeader(plan.tensors, metadata);
  return plan;
}

}  // namespace ckpt::convert
