#include "lib/attest/derivation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/formats/weight_formats.h"
#include "lib/hashing/sha256.h"

namespace ckpt::attest {
namespace {

constexpr std::size_t kWindow = 1 << 20;

struct Range {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::size_t owner = 0;  ///< index of what it belongs to
  std::string sha256;     ///< filled by HashFile
};

// One sequential read of `file`: its SHA-256, and each range's (sorted, disjoint).
IoResult<std::string> HashFile(const RandomAccessFile& file, std::vector<Range>& ranges) {
  std::vector<std::byte> buffer(kWindow);
  Sha256 whole;
  Sha256 part;
  std::size_t next = 0;  // first range not yet finished
  const std::uint64_t size = file.size();
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, size - at));
    std::span<std::byte> window(buffer.data(), n);
    if (auto read = file.ReadAt(at, window); !read) return read.error();
    whole.Update(window);
    const std::uint64_t window_end = at + n;
    while (next < ranges.size() && ranges[next].begin < window_end) {
      Range& r = ranges[next];
      const std::uint64_t from = std::max(r.begin, at);
      const std::uint64_t to = std::min(r.end, window_end);
      if (to > from)
        part.Update(window.subspan(static_cast<std::size_t>(from - at), static_cast<std::size_t>(to - from)));
      if (r.end > window_end) break;  // continues in the next window
      r.sha256 = part.FinalHex();
      ++next;
    }
    at = window_end;
  }
  for (; next < ranges.size(); ++next) ranges[next].sha256 = part.FinalHex();  // empty ranges at the end
  return whole.FinalHex();
}

std::string Shape(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

void Report(DiagnosticSink& sink, Diag kind, const std::string& file, std::optional<std::uint64_t> offset,
            std::optional<std::string> tensor, std::string message) {
  Location at;
  at.file = file;
  at.byte_offset = offset;
  at.tensor = std::move(tensor);
  sink.Report(kind, std::move(at), std::move(message));
}

// The output: its subject, its tensor set and each tensor's bytes.
IoResult<void> CheckOutput(const DerivationStatement& record, DerivationFile output, DiagnosticSink& sink,
                           DerivationDigests& digests) {
  const std::string name = output.name;
  DiagnosticList reader;
  auto read = AcceptedWeightFormat().read(name, std::move(output.file), reader);
  if (!read) return read.error();
  WeightFile& wf = *read;
  if (!wf.valid) {
    Report(sink, Diag::kDerivationTensorMismatch, name, 0, std::nullopt,
           "The output is not a strict safetensors file" +
               (reader.items.empty() ? std::string(".") : ": " + reader.items.front().message));
    return {};
  }
  std::map<std::string, const DerivedTensor*> recorded;
  for (const DerivedTensor& t : record.tensors) recorded.emplace(t.name, &t);
  std::vector<Range> ranges;
  std::map<std::string, const StoredTensor*> present;
  for (std::size_t i = 0; i < wf.tensors.size(); ++i) {
    const StoredTensor& s = wf.tensors[i];
    present.emplace(s.name, &s);
    auto it = recorded.find(s.name);
    if (it == recorded.end()) {
      Report(sink, Diag::kDerivationTensorMismatch, name, s.entry_offset, s.name,
             "The output holds tensor " + QuoteForMessage(s.name) + ", which the record does not list.");
      continue;
    }
    const DerivedTensor& r = *it->second;
    if (r.dtype != s.dtype || r.shape != s.shape || r.size_bytes != s.data_length) {
      Report(sink, Diag::kDerivationTensorMismatch, name, s.entry_offset, s.name,
             "Tensor " + QuoteForMessage(s.name) + " is " + s.dtype + " " + Shape(s.shape) + " (" +
                 std::to_string(s.data_length) + " bytes) in the output, but the record says " +
                 QuoteForMessage(r.dtype, 16) + " " + Shape(r.shape) + " (" + std::to_string(r.size_bytes) +
                 " bytes).");
      continue;
    }
    ranges.push_back({s.data_offset, s.data_offset + s.data_length, i, {}});
  }
  for (const DerivedTensor& r : record.tensors) {
    if (!present.contains(r.name)) {
      Report(sink, Diag::kDerivationTensorMismatch, name, std::nullopt, r.name,
             "The record lists tensor " + QuoteForMessage(r.name) + ", which the output does not hold.");
    }
  }
  // Each alias the record names is kept as safetensors' tools keep it: `__metadata__`
  // maps the alias to the tensor written once.
  for (const auto& entry : record.aliases) {
    const std::string& alias = entry.first;
    const std::string& kept = entry.second;
    auto it = std::find_if(wf.metadata.begin(), wf.metadata.end(), [&](const auto& m) { return m.first == alias; });
    if (!recorded.contains(kept) || it == wf.metadata.end() || it->second != kept) {
      Report(sink, Diag::kDerivationTensorMismatch, name, std::nullopt, alias,
             "The record says " + QuoteForMessage(alias) + " is an alias of " + QuoteForMessage(kept) + ", but " +
                 (!recorded.contains(kept) ? std::string("the record lists no such tensor.")
                                           : "the output's __metadata__ does not map it so."));
    }
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  auto digest = HashFile(*wf.file, ranges);
  if (!digest) return digest.error();
  digests.output_size = wf.file->size();
  digests.output_sha256 = *digest;
  // The subject: the one subject, or the one named like the output (an artifact's file).
  const Subject* subject = record.subjects.size() == 1 ? &record.subjects.front() : nullptr;
  for (const Subject& s : record.subjects) {
    if (s.name == name) subject = &s;
  }
  if (subject == nullptr) {
    Report(sink, Diag::kAttestSubjectMismatch, name, std::nullopt, std::nullopt,
           "The record's subjects do not name the output " + QuoteForMessage(name) + ".");
  } else if (subject->sha256 != *digest) {
    Report(sink, Diag::kAttestSubjectMismatch, name, std::nullopt, std::nullopt,
           "The output's SHA-256 is " + *digest + ", but the record's subject " + QuoteForMessage(subject->name) +
               " says " + subject->sha256 + ": the output changed after the record was signed.");
  }
  for (const Range& r : ranges) {
    const StoredTensor& s = wf.tensors[r.owner];
    const DerivedTensor& t = *recorded.at(s.name);
    if (r.sha256 != t.sha256) {
      Report(sink, Diag::kDerivationTensorMismatch, name, s.data_offset, s.name,
             "Tensor " + QuoteForMessage(s.name) + "'s bytes in the output hash to " + r.sha256.substr(0, 16) +
                 "..., not to the recorded " + t.sha256.substr(0, 16) + "...");
    }
  }
  return {};
}

// The input: its SHA-256 and each tensor's bytes in its source record.
IoResult<void> CheckInput(const DerivationStatement& record, DerivationFile input, DiagnosticSink& sink,
                          DerivationDigests& digests) {
  const std::string name = input.name;
  auto classified = ClassifyFile(*input.file);
  if (!classified) return classified.error();
  const InputKind kind = classified->kind;
  if (FormatOf(kind).torch_loads != TorchLoads::kTorchSave) {
    Report(
        sink, Diag::kDerivationInputMismatch, name, 0, std::nullopt,
        "The input is " +
            (classified->description.empty() ? std::string("no format the tools recognise") : classified->description) +
            ", not a torch.save checkpoint whose storage records a derivation can name.");
    return {};
  }
  DiagnosticList analysis;  // the audit judges the checkpoint; here only its records matter
  auto read = ReadPickleFamily(kind, name, std::move(input.file), analysis);
  if (!read) return read.error();
  WeightFile& wf = *read;
  std::map<std::string, PickleFacts::Record> records;
  if (wf.pickle) {
    for (const PickleFacts::Record& r : wf.pickle->records) records.emplace(r.name, r);
  }
  std::vector<Range> ranges;
  for (std::size_t i = 0; i < record.tensors.size(); ++i) {
    const DerivedTensor& t = record.tensors[i];
    auto it = records.find(t.record);
    if (it == records.end()) {
      Report(sink, Diag::kDerivationSourceMismatch, name, std::nullopt, t.name,
             "Tensor " + QuoteForMessage(t.name) + "'s source record " + QuoteForMessage(t.record) +
                 " is not a storage record of the input.");
      continue;
    }
    const PickleFacts::Record& r = it->second;
    // A zip record's offset counts from the record's first byte; a legacy storage's is absolute.
    const bool legacy = t.record.starts_with("storage:");
    std::optional<std::uint64_t> begin = legacy ? std::optional(t.offset_bytes) : CheckedAdd(r.offset, t.offset_bytes);
    std::optional<std::uint64_t> end = begin ? CheckedAdd(*begin, t.size_bytes) : std::nullopt;
    if (!end || *begin < r.offset || *end > r.offset + r.length) {
      Report(sink, Diag::kDerivationSourceMismatch, name, r.offset, t.name,
             "Tensor " + QuoteForMessage(t.name) + "'s source range (" + std::to_string(t.size_bytes) +
                 " bytes at offset " + std::to_string(t.offset_bytes) + ") lies outside record " +
                 QuoteForMessage(t.record) + " (" + std::to_string(r.length) + " bytes).");
      continue;
    }
    ranges.push_back({*begin, *end, i, {}});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  // An exact alias written as a copy (a model folder's conversion) names its tensor's range
  // again: hashed once, and each copy must record the same digest.
  std::vector<std::pair<std::size_t, std::size_t>> copies;  // (tensor, the range it copies: its owner)
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].begin == ranges[i - 1].begin && ranges[i].end == ranges[i - 1].end &&
        ranges[i].end > ranges[i].begin) {
      copies.emplace_back(ranges[i].owner, ranges[i - 1].owner);
      ranges.erase(ranges.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
    }
  }
  // Other sources of a conversion never overlap; overlapping ranges would also let a record
  // make the verifier hash one region many times.
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].begin < ranges[i - 1].end) {
      const DerivedTensor& t = record.tensors[ranges[i].owner];
      Report(sink, Diag::kDerivationSourceMismatch, name, ranges[i].begin, t.name,
             "Tensor " + QuoteForMessage(t.name) + "'s source range overlaps tensor " +
                 QuoteForMessage(record.tensors[ranges[i - 1].owner].name) +
                 "'s: a conversion copies each storage byte into one tensor.");
      ranges.erase(ranges.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
    }
  }
  auto digest = HashFile(*wf.file, ranges);
  if (!digest) return digest.error();
  digests.input_size = wf.file->size();
  digests.input_sha256 = *digest;
  if (*digest != record.input_sha256) {
    Report(sink, Diag::kDerivationInputMismatch, name, std::nullopt, std::nullopt,
           "The input's SHA-256 is " + *digest + ", but the record says " + QuoteForMessage(record.input_name) +
               " was " + record.input_sha256 + ".");
  }
  std::map<std::size_t, const Range*> range_of;
  for (const Range& r : ranges) range_of[r.owner] = &r;
  auto check = [&](const DerivedTensor& t, const Range& r) {
    if (r.sha256 != t.sha256) {
      Report(sink, Diag::kDerivationSourceMismatch, name, r.begin, t.name,
             "Tensor " + QuoteForMessage(t.name) + "'s bytes in " + QuoteForMessage(t.record) + " hash to " +
                 r.sha256.substr(0, 16) + "..., not to the recorded " + t.sha256.substr(0, 16) + "...");
    }
  };
  for (const Range& r : ranges) check(record.tensors[r.owner], r);
  for (const auto& [copy, original] : copies) {
    if (auto it = range_of.find(original); it != range_of.end()) check(record.tensors[copy], *it->second);
  }
  return {};
}

}  // namespace

IoResult<DerivationDigests> VerifyDerivation(const DerivationStatement& record, DerivationFile output,
                                             DerivationFile* input, DiagnosticSink& sink) {
  DerivationDigests digests;
  if (auto out = CheckOutput(record, std::move(output), sink, digests); !out) return out.error();
  if (input != nullptr) {
    if (auto in = CheckInput(record, std::move(*input), sink, digests); !in) return in.error();
  }
  return digests;
}

namespace {

boost::json::array SubjectsJson(const std::vector<std::pair<std::string, std::string>>& subjects) {
  boost::json::array out;
  for (const auto& [name, sha] : subjects) out.push_back({{"name", ToValidUtf8(name)}, {"digest", {{"sha256", sha}}}});
  return out;
}

}  // namespace

std::string DerivationPayload(const convert::Plan& plan, const std::vector<std::string>& hashes,
                              const std::vector<std::pair<std::string, std::string>>& subjects,
                              const std::string& input_name, const std::string& input_sha256) {
  boost::json::array tensors;
  for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
    const convert::PlannedTensor& t = plan.tensors[i];
    boost::json::array shape;
    for (std::uint64_t d : t.shape) shape.push_back(d);
    tensors.push_back({{"name", ToValidUtf8(t.name)},
                       {"dtype", t.dtype},
                       {"shape", std::move(shape)},
                       {"size_bytes", t.size},
                       {"sha256", hashes[i]},
                       {"source", {{"record", ToValidUtf8(t.record)}, {"offset_bytes", t.record_offset}}}});
  }
  boost::json::array not_carried;
  for (const std::string& n : plan.not_carried) not_carried.push_back(boost::json::value(ToValidUtf8(n)));
  boost::json::object aliases;
  for (const auto& [name, kept] : plan.aliases) aliases[ToValidUtf8(name)] = ToValidUtf8(kept);
  boost::json::object statement{
      {"_type", kStatementType},
      {"subject", SubjectsJson(subjects)},
      {"predicateType", kDerivationPredicateType},
      {"predicate",
       {{"tool", {{"name", "ckpt-convert"}, {"version", CKPT_VERSION}}},
        {"input", {{"name", ToValidUtf8(input_name)}, {"digest", {{"sha256", input_sha256}}}}},
        {"tensors", std::move(tensors)},
        {"aliases", std::move(aliases)},
        {"not_carried", std::move(not_carried)}}}};
  return boost::json::serialize(statement);
}

}  // namespace ckpt::attest
