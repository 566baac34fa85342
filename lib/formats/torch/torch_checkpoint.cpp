#include "lib/formats/torch/torch_checkpoint.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/hashing/crc32.h"

namespace ckpt {
namespace {

using pickle::Analyser;
using pickle::AnalyseStream;
using pickle::Kind;
using pickle::NamedTensor;
using pickle::PickleFollows;
using pickle::RebuiltTensor;
using pickle::StorageMode;
using pickle::StorageRef;

// The magic number torch's legacy format pickles first: LONG1 of 0x1950a86a20f9469cfc6c.
constexpr std::string_view kLegacyMagicBytes("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);
constexpr std::string_view kLegacyStart("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14);
constexpr std::int64_t kLegacyProtocolVersion = 1001;

using Reporter = FileReporter;

// Reads a member's whole bytes for its CRC-32 (members other than data records are small
// or are read by the analysis anyway).
IoResult<std::uint32_t> MemberCrc(const RandomAccessFile& file, const ZipMember& m) {
  Crc32 crc;
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(m.compressed_size, 1 << 20)));
  for (std::uint64_t at = 0; at < m.compressed_size;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), m.compressed_size - at));
    if (auto read = file.ReadAt(m.data_offset + at, std::span(buffer).first(n)); !read) return read.error();
    crc.Update(std::span(buffer).first(n));
    at += n;
  }
  return crc.value();
}

// A sorted table of (key, value) keeping the first value added for each key, as a std::map
// filled by emplace would, at 24 bytes an entry instead of a tree node each: a torch.save of
// 10^6 tensors has 10^6 records and storages, and four such maps were 280 MB of it.
template <class Value>
class FirstByKey {
 public:
  void Reserve(std::size_t count) { entries_.reserve(count); }
  void Add(std::string_view key, Value value) { entries_.emplace_back(key, value); }
  /// Sorts by key, keeping each key's first entry; call once all are added.
  void Seal() {
    std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    entries_.erase(
        std::unique(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        entries_.end());
  }
  [[nodiscard]] const Value* Find(std::string_view key) const {
    const auto at = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const auto& entry, std::string_view k) { return entry.first < k; });
    return at != entries_.end() && at->first == key ? &at->second : nullptr;
  }
  [[nodiscard]] auto begin() const { return entries_.begin(); }
  [[nodiscard]] auto end() const { return entries_.end(); }

 private:
  std::vector<std::pair<std::string_view, Value>> entries_;
};

// Where each storage's bytes start in the file, by storage index (nullopt: not located).
using RecordOffsets = std::vector<std::optional<std::uint64_t>>;

std::string TokenOf(const RebuiltTensor& t) {
  return t.dtype != nullptr ? std::string(t.dtype->safetensors) : t.torch_dtype;
}

// The listed tensors into `out`, located in their storages' bytes where `record_offset`
// knows them (absolute offset of a storage's first byte).
void AddTensors(const Analyser& analyser, std::vector<NamedTensor> named, const RecordOffsets& record_offset,
                WeightFile& out, const Reporter& report, std::uint64_t at) {
  std::set<std::string> reported_dtypes;
  const auto offset_of = [&record_offset](std::uint32_t storage) -> std::optional<std::uint64_t> {
    return storage < record_offset.size() ? record_offset[storage] : std::nullopt;
  };
  out.tensors.reserve(out.tensors.size() + named.size());
  for (NamedTensor& n : named) {
    const RebuiltTensor& t = analyser.tensors()[n.tensor];
    if (out.pickle) {
      PickleFacts::TensorSource source;
      source.stride = t.stride;
      bool empty = false;
      for (std::uint64_t d : t.shape) empty |= d == 0;
      source.contiguous = t.contiguous || empty;  // c10: an empty tensor is contiguous
      if (t.storage) {
        source.has_storage = true;
        source.storage = *t.storage;
        const StorageRef& storage = analyser.storages()[*t.storage];
        const std::uint64_t unit = storage.type_name == "UntypedStorage" ? t.element_size : storage.element_size;
        source.offset = CheckedMul(t.storage_offset, unit).value_or(UINT64_MAX);
        if (const auto offset = offset_of(*t.storage)) {
          // The records are in file order (PickleFacts::records): the first at that offset.
          const auto& records = out.pickle->records;
          const auto r =
              std::lower_bound(records.begin(), records.end(), *offset,
                               [](const PickleFacts::Record& rec, std::uint64_t start) { return rec.offset < start; });
          if (r != records.end() && r->offset == *offset)
            source.record = static_cast<std::uint32_t>(r - records.begin());
        }
      }
      out.pickle->sources.push_back(std::move(source));
    }
    StoredTensor s;
    s.name = std::move(n.name);  // names are held once (a listing may spell up to its budget of them)
    s.dtype = TokenOf(t);
    s.shape = t.shape;
    s.entry_offset = t.offset;
    s.complete = t.valid;
    s.conj = t.conj;
    s.neg = t.neg;
    if (t.dtype == nullptr && reported_dtypes.insert(t.torch_dtype).second) {
      report(Diag::kPickleDtypeUnsupported, t.offset,
             "Tensor " + QuoteForMessage(s.name) + " is " + t.torch_dtype +
                 ", which has no safetensors dtype token: it cannot be listed or converted faithfully.");
    }
    if (t.dtype != nullptr) s.element = t.dtype->id;
    std::optional<std::uint64_t> numel = 1;
    for (std::uint64_t d : t.shape) numel = numel ? CheckedMul(*numel, d) : std::nullopt;
    auto bytes = numel ? CheckedMul(*numel, t.element_size) : std::nullopt;
    if (t.storage && t.contiguous && bytes) {
      if (const auto record = offset_of(*t.storage)) {
        const StorageRef& storage = analyser.storages()[*t.storage];
        // An untyped storage's offset counts elements of the tensor's dtype, like a typed one's.
        const std::uint64_t unit = storage.type_name == "UntypedStorage" ? t.element_size : storage.element_size;
        auto start = CheckedMul(t.storage_offset, unit);
        auto offset = start ? CheckedAdd(*record, *start) : std::nullopt;
        if (offset) {
          s.data_offset = *offset;
          s.data_length = *bytes;
          s.begin = *offset;
          s.end = *offset + *bytes;
        }
      }
    }
    out.tensors.push_back(std::move(s));
  }
  (void)at;
}

IoResult<WeightFile> ReadTorchZip(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink) {
  const Reporter report(wf.name, sink);
  auto dir = ReadZipDirectory(file, wf.name, sink);
  if (!dir) return dir.error();
  if (!dir->found || dir->members.empty()) {
    if (dir->found) report(Diag::kZipStructure, 0, "The zip holds no members: it is not a torch.save checkpoint.");
    return wf;
  }
  // torch's reader takes the archive folder from the first member's name.
  const std::string& first = dir->members.front().name;
  const std::size_t slash = first.find('/');
  const std::string top = slash == std::string::npos ? std::string() : first.substr(0, slash + 1);
  if (top.empty()) {
    report(Diag::kZipStructure, dir->members.front().central_offset,
           "The first member " + QuoteForMessage(first) +
               " is not inside a folder; torch.save puts every member under one top folder.");
  }
  const ZipMember* data_pkl = nullptr;
  FirstByKey<const ZipMember*> records;  // key -> data/<key>
  records.Reserve(dir->members.size());
  const ZipMember* byteorder = nullptr;
  std::vector<const ZipMember*> other_pickles;
  Analyser analyser(wf.name, sink, StorageMode::kTorchZip);
  std::uint32_t pickles = 0;
  for (const ZipMember& m : dir->members) {
    const std::string shown = QuoteForMessage(m.name);
    const bool inside = !top.empty() && m.name.starts_with(top) && m.name.size() > top.size();
    const std::string rel = inside ? m.name.substr(top.size()) : std::string();
    bool expected = inside;
    if (rel == "data.pkl") {
      if (data_pkl == nullptr) data_pkl = &m;
    } else if (rel.starts_with("data/") && rel.size() > 5 && rel.find('/', 5) == std::string::npos) {
      records.Add(std::string_view(m.name).substr(top.size() + 5), &m);
    } else if (rel == "byteorder") {
      byteorder = &m;
    } else if (rel != "version" && rel != ".data/version" && rel != ".data/serialization_id" &&
               rel != ".format_version" && rel != ".storage_alignment") {
      expected = false;
    }
    if (!expected) {
      report(Diag::kZipMemberUnexpected, m.central_offset,
             "Member " + shown + " is not one torch.save writes" +
                 (inside ? std::string() : " (outside the archive folder " + QuoteForMessage(top) + ")") +
                 "; it is analysed as what its bytes are.");
      other_pickles.push_back(&m);
    }
    // CRC-32: checked here for every member but the data records, whose bytes are checked
    // while the file is hashed (read once).
    if (!m.located || m.method != 0) continue;
    if (inside && rel.starts_with("data/") && expected) {
      wf.pending_crcs.push_back({m.name, m.data_offset, m.compressed_size, m.crc32});
      continue;
    }
    auto crc = MemberCrc(file, m);
    if (!crc) return crc.error();
    if (*crc != m.crc32) {
      report(Diag::kZipCrcMismatch, m.header_offset,
             "Member " + shown + " has CRC-32 " + Crc32Hex(*crc) + ", not the " + Crc32Hex(m.crc32) +
                 " its directory records: its bytes were changed after it was written (torch does not check).");
    }
  }
  if (byteorder != nullptr && byteorder->located && byteorder->method == 0 && byteorder->size <= 16) {
    std::string order(static_cast<std::size_t>(byteorder->size), '\0');
    if (auto read = file.ReadAt(byteorder->data_offset, std::as_writable_bytes(std::span(order))); !read) {
      return read.error();
    }
    if (order != "little") {
      wf.pickle->big_endian = true;
      report(Diag::kPickleDtypeUnsupported, byteorder->data_offset,
             "The byteorder record says " + QuoteForMessage(order) +
                 ": tensor data is not little-endian, which safetensors requires.");
    }
  }
  std::optional<pickle::ValueId> root;
  std::uint64_t root_end = 0;
  if (data_pkl == nullptr) {
    report(Diag::kZipStructure, 0,
           "The zip has no " + QuoteForMessage(top + "data.pkl") + ": it is not a torch.save checkpoint.");
  } else if (!data_pkl->located || data_pkl->method != 0) {
    report(Diag::kZipStructure, data_pkl->header_offset,
           "Member " + QuoteForMessage(data_pkl->name) + " cannot be read in place, so its pickle is not analysed.");
  } else {
    auto run =
        AnalyseStream(analyser, file, data_pkl->data_offset, data_pkl->data_offset + data_pkl->size, report, pickles);
    if (!run) return run.error();
    if (*run && (*run)->root) {
      root = (*run)->root;
      root_end = (*run)->end;
    }
  }
  // Members torch.save does not write are still analysed when they hold a pickle.
  analyser.set_mode(StorageMode::kNone);
  for (const ZipMember* m : other_pickles) {
    if (!m->located || m->method != 0) continue;
    auto follows = PickleFollows(file, m->data_offset);
    if (!follows) return follows.error();
    if (m->size == 0 || !*follows) continue;
    auto run = AnalyseStream(analyser, file, m->data_offset, m->data_offset + m->size, report, pickles);
    if (!run) return run.error();
  }
  // Storage references against the data records.
  records.Seal();
  RecordOffsets record_offset(analyser.storages().size());
  std::vector<std::string_view> referenced;
  referenced.reserve(analyser.storages().size());
  for (std::uint32_t i = 0; i < analyser.storages().size(); ++i) {
    const StorageRef& s = analyser.storages()[i];
    referenced.push_back(s.key);
    const ZipMember* const* found = records.Find(s.key);
    if (found == nullptr) {
      report(Diag::kPickleStorageMismatch, s.offset,
             "Storage " + QuoteForMessage(s.key) + " (referenced at byte " + std::to_string(s.offset) +
                 ") has no record " + QuoteForMessage(top + "data/" + s.key) + " in the zip.");
      continue;
    }
    const ZipMember& record = **found;
    auto expected = CheckedMul(s.numel, s.element_size);
    if (!expected || *expected != record.size) {
      report(Diag::kPickleStorageMismatch, record.header_offset,
             "Record " + QuoteForMessage(record.name) + " holds " + std::to_string(record.size) +
                 " bytes, but its storage is " + std::string(s.type_name) + " of " + std::to_string(s.numel) +
                 " elements (" + (expected ? std::to_string(*expected) : std::string("past 2^64")) + " bytes).");
      continue;
    }
    if (record.located && record.method == 0) {
      record_offset[i] = record.data_offset;
      wf.pickle->records.push_back({record.name, record.data_offset, record.size});
    }
  }
  std::sort(wf.pickle->records.begin(), wf.pickle->records.end(),
            [](const PickleFacts::Record& a, const PickleFacts::Record& b) { return a.offset < b.offset; });
  // Once a budget stopped the analysis, the storages after that point were never seen: their
  // records are not unexpected, and the budget's finding says where the read stopped.
  std::sort(referenced.begin(), referenced.end());
  for (const auto& [key, m] : records) {
    if (!std::binary_search(referenced.begin(), referenced.end(), key) && !analyser.budget().exceeded) {
      report(Diag::kZipMemberUnexpected, m->central_offset,
             "Record " + QuoteForMessage(m->name) +
                 " is referenced by no storage in data.pkl: torch.save writes "
                 "only the records it references.");
    }
  }
  wf.pickle->pickles = pickles;
  wf.pickle->unsafe = analyser.unsafe();
  if (root) {
    AddTensors(analyser, analyser.ListTensors(*root, root_end, &wf.pickle->not_tensors), record_offset, wf, report,
               root_end);
  }
  wf.valid = dir->found;
  return wf;
}

IoResult<WeightFile> ReadTorchLegacy(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink) {
  const Reporter report(wf.name, sink);
  Analyser analyser(wf.name, sink, StorageMode::kNone);
  std::uint32_t pickles = 0;
  const std::uint64_t size = file.size();
  std::uint64_t at = 0;
  bool layout_ok = true;
  auto broken = [&](std::uint64_t offset, const std::string& message) {
    layout_ok = false;
    report(Diag::kTorchLegacyLayout, offset, message);
  };
  // The five pickles: magic, protocol version, sys_info, the object, the storage keys.
  std::optional<pickle::ValueId> object_root;
  std::optional<pickle::ValueId> keys_root;
  std::uint64_t object_end = 0;
  static constexpr std::array<std::string_view, 5> kNames = {"magic number", "protocol version", "sys_info", "object",
                                                             "storage keys"};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    analyser.set_mode(i == 3 ? StorageMode::kTorchLegacy : StorageMode::kNone);
    if (at >= size) {
      broken(at, "The legacy file ends before its " + std::string(kNames[i]) + " pickle.");
      break;
    }
    auto run = analyser.Run(file, at, size);
    if (!run) return run.error();
    ++pickles;
    if (!run->stopped || !run->root) {
      layout_ok = false;
      break;  // the stream's own finding says why
    }
    const pickle::Value& v = analyser.value(*run->root);
    if (i == 0 && !(v.kind == Kind::kBigInt && analyser.text(*run->root) == kLegacyMagicBytes)) {
      broken(at, "The first pickle is not torch's legacy magic number 0x1950a86a20f9469cfc6c.");
    } else if (i == 1 && !(v.kind == Kind::kInt && analyser.number(*run->root) == kLegacyProtocolVersion)) {
      broken(at, "The second pickle is " + analyser.Render(*run->root) + ", not the protocol version 1001.");
    } else if (i == 2) {
      if (v.kind != Kind::kDict) {
        broken(at, "The third pickle is " + analyser.Render(*run->root) + ", not a sys_info dict.");
      } else {
        const auto& kv = analyser.items(*run->root);
        for (std::size_t k = 0; k + 1 < kv.size(); k += 2) {
          const pickle::Value& key = analyser.value(kv[k]);
          const pickle::Value& value = analyser.value(kv[k + 1]);
          if (key.kind == Kind::kStr && analyser.text(kv[k]) == "little_endian" &&
              !(value.kind == Kind::kBool && analyser.number(kv[k + 1]) != 0)) {
            report(Diag::kPickleDtypeUnsupported, at,
                   "sys_info says little_endian is " + analyser.Render(kv[k + 1]) +
                       ": tensor data is not little-endian, which safetensors requires.");
          }
        }
      }
    } else if (i == 3) {
      object_root = run->root;
      object_end = run->end;
    } else if (i == 4) {
      keys_root = run->root;
    }
    at = run->end;
  }
  // The storages, in the order of the keys list: an 8-byte count equal to numel, the bytes.
  FirstByKey<std::uint32_t> storage_of;
  storage_of.Reserve(analyser.storages().size());
  for (std::uint32_t i = 0; i < analyser.storages().size(); ++i) storage_of.Add(analyser.storages()[i].key, i);
  storage_of.Seal();
  RecordOffsets record_offset(analyser.storages().size());
  std::vector<bool> listed(analyser.storages().size(), false);  // by storage_of's index
  if (keys_root && layout_ok) {
    const pickle::Value& keys = analyser.value(*keys_root);
    if (keys.kind != Kind::kList) {
      broken(at, "The fifth pickle is " + analyser.Render(*keys_root) + ", not the list of storage keys.");
    } else {
      for (pickle::ValueId k : analyser.items(*keys_root)) {
        if (analyser.value(k).kind != Kind::kStr) {
          broken(at, "The storage key list holds " + analyser.Render(k) + ", not a str.");
          break;
        }
        const std::string& key = analyser.text(k);
        const std::uint32_t* storage = storage_of.Find(key);
        if (storage == nullptr || listed[*storage]) {
          broken(at,
                 "Storage key " + QuoteForMessage(key) +
                     (storage == nullptr ? " is referenced by no tensor in the object pickle." : " is listed twice."));
          break;
        }
        listed[*storage] = true;
        const StorageRef& s = analyser.storages()[*storage];
        std::array<std::byte, 8> count_bytes{};
        if (size - at < 8) {
          broken(at, "The legacy file ends before storage " + QuoteForMessage(key) + "'s element count.");
          break;
        }
        if (auto read = file.ReadAt(at, count_bytes); !read) return read.error();
        ByteReader r(count_bytes);
        const std::uint64_t count = *r.ReadU64LE();
        auto bytes = CheckedMul(s.numel, s.element_size);
        if (count != s.numel || !bytes || *bytes > size - at - 8) {
          broken(at, "Storage " + QuoteForMessage(key) + " at byte " + std::to_string(at) + " holds a count of " +
                         std::to_string(count) + " for a storage of " + std::to_string(s.numel) + " elements" +
                         (bytes && *bytes > size - at - 8 ? ", and its bytes run past the end of the file." : "."));
          break;
        }
        record_offset[*storage] = at + 8;
        wf.pickle->records.push_back({"storage:" + key, at + 8, *bytes});
        at += 8 + *bytes;
      }
      if (layout_ok) {
        for (const StorageRef& s : analyser.storages()) {
          if (!listed[*storage_of.Find(s.key)]) {
            report(Diag::kPickleStorageMismatch, s.offset,
                   "Storage " + QuoteForMessage(s.key) +
                       " is referenced in the object pickle but not in the key list: "
                       "its bytes are not in the file.");
          }
        }
        if (at != size) {
          broken(at, std::to_string(size - at) + " bytes follow the last storage; torch.save writes nothing there.");
        }
      }
    }
  }
  if (!layout_ok && at < size) {
    // Every remaining pickle is still analysed: a payload may hide after the break.
    analyser.set_mode(StorageMode::kNone);
    auto rest = AnalyseStream(analyser, file, at, size, report, pickles);
    if (!rest) return rest.error();
  }
  wf.pickle->pickles = pickles;
  wf.pickle->unsafe = analyser.unsafe();
  if (object_root) {
    AddTensors(analyser, analyser.ListTensors(*object_root, object_end, &wf.pickle->not_tensors), record_offset, wf,
               report, 0);
  }
  wf.valid = layout_ok;
  return wf;
}

IoResult<WeightFile> ReadPlainPickle(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink) {
  const Reporter report(wf.name, sink);
  Analyser analyser(wf.name, sink, StorageMode::kNone);
  std::uint32_t pickles = 0;
  auto run = AnalyseStream(analyser, file, 0, file.size(), report, pickles);
  if (!run) return run.error();
  wf.pickle->pickles = pickles;
  wf.pickle->unsafe = analyser.unsafe();
  wf.valid = true;
  return wf;
}

// A .npy header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::uint64_t> shape;
};

std::optional<NpyHeader> ParseNpyHeader(std::string_view text, std::string& why) {
  NpyHeader h;
  auto skip = [&] {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t'))
      text.remove_prefix(1);
  };
  auto eat = [&](char c) {
    skip();
    if (text.empty() || text.front() != c) return false;
    text.remove_prefix(1);
    return true;
  };
  auto quoted = [&]() -> std::optional<std::string> {
    skip();
    if (text.empty() || (text.front() != '\'' && text.front() != '"')) return std::nullopt;
    const char q = text.front();
    const std::size_t close = text.find(q, 1);
    if (close == std::string_view::npos) return std::nullopt;
    std::string out(text.substr(1, close - 1));
    text.remove_prefix(close + 1);
    return out;
  };
  if (!eat('{')) {
    why = "it does not start with '{'";
    return std::nullopt;
  }
  std::set<std::string> seen;
  while (true) {
    skip();
    if (eat('}')) break;
    auto key = quoted();
    if (!key || !eat(':') || !seen.insert(*key).second) {
      why = "it is not a dict of distinct quoted keys";
      return std::nullopt;
    }
    skip();
    if (*key == "descr") {
      auto d = quoted();
      if (!d) {
        why = "its descr is not a string (a structured dtype?)";
        return std::nullopt;
      }
      h.descr = *d;
    } else if (*key == "fortran_order") {
      if (text.starts_with("True")) {
        h.fortran = true;
        text.remove_prefix(4);
      } else if (text.starts_with("False")) {
        text.remove_prefix(5);
      } else {
        why = "its fortran_order is not True or False";
        return std::nullopt;
      }
    } else if (*key == "shape") {
      if (!eat('(')) {
        why = "its shape is not a tuple";
        return std::nullopt;
      }
      while (true) {
        skip();
        if (eat(')')) break;
        std::uint64_t n = 0;
        std::size_t digits = 0;
        while (!text.empty() && text.front() >= '0' && text.front() <= '9' && digits < 20) {
          auto next = CheckedMul(n, 10);
          next = next ? CheckedAdd(*next, static_cast<std::uint64_t>(text.front() - '0')) : std::nullopt;
          if (!next) {
            why = "a dimension overflows 64 bits";
            return std::nullopt;
          }
          n = *next;
          text.remove_prefix(1);
          ++digits;
        }
        if (digits == 0) {
          why = "its shape holds something other than non-negative ints";
          return std::nullopt;
        }
        h.shape.push_back(n);
        if (h.shape.size() > 64) {
          why = "its shape has more than 64 dimensions";
          return std::nullopt;
        }
        skip();
        if (eat(')')) break;
        if (!eat(',')) {
          why = "its shape is not a tuple of ints";
          return std::nullopt;
        }
      }
    } else {
      why = "it has the unexpected key " + QuoteForMessage(*key);
      return std::nullopt;
    }
    skip();
    if (eat('}')) break;
    if (!eat(',')) {
      why = "its items are not separated by commas";
      return std::nullopt;
    }
  }
  skip();
  if (!text.empty() || seen.size() != 3) {
    why = text.empty() ? "it lacks one of descr, fortran_order and shape" : "bytes follow its closing brace";
    return std::nullopt;
  }
  return h;
}

}  // namespace

IoResult<WeightFile> ReadNpy(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink, bool in_npz) {
  const Reporter report(wf.name, sink);
  const std::uint64_t size = file.size();
  std::array<std::byte, 12> fixed{};
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(size, fixed.size()));
  if (auto read = file.ReadAt(0, std::span(fixed).first(n)); !read) return read.error();
  const unsigned major = n > 6 ? std::to_integer<unsigned>(fixed[6]) : 0;
  if (n < 10 || (major < 1 || major > 3)) {
    report(Diag::kNumpyHeaderInvalid, 0,
           "The .npy file has no valid version after its magic (major version " + std::to_string(major) + ").");
    return wf;
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  std::uint64_t header_length = 0;
  for (std::size_t i = length_bytes; i-- > 0;)
    header_length = (header_length << 8) | std::to_integer<unsigned>(fixed[8 + i]);
  const std::uint64_t header_at = 8 + length_bytes;
  constexpr std::uint64_t kMaxHeader = 1 << 20;
  if (header_length > kMaxHeader || header_length > size - std::min(size, header_at)) {
    report(Diag::kNumpyHeaderInvalid, 8,
           "The .npy header claims " + std::to_string(header_length) + " bytes, more than the file holds (or than " +
               std::to_string(kMaxHeader) + ").");
    return wf;
  }
  std::string header(static_cast<std::size_t>(header_length), '\0');
  if (auto read = file.ReadAt(header_at, std::as_writable_bytes(std::span(header))); !read) return read.error();
  std::string why;
  auto h = ParseNpyHeader(header, why);
  const std::uint64_t data_at = header_at + header_length;
  if (!h) {
    report(Diag::kNumpyHeaderInvalid, header_at,
           "The .npy header " + QuoteForMessage(header, 80) + " is not valid: " + why + ".");
    return wf;
  }
  if (h->descr.size() >= 2 && h->descr[1] == 'O') {
    report(
        in_npz ? Diag::kNpzObjectArray : Diag::kNumpyObjectArray, header_at,
        "The .npy array has dtype " + QuoteForMessage(h->descr) +
            ": its data is a pickle, which numpy.load(allow_pickle=True) runs; it is analysed below and never passes.");
    Analyser analyser(wf.name, sink, StorageMode::kNone, pickle::NumpyFindClass());
    std::uint32_t pickles = 0;
    auto run = AnalyseStream(analyser, file, data_at, size, report, pickles);
    if (!run) return run.error();
    wf.pickle->pickles = pickles;
    wf.pickle->unsafe = true;
    return wf;
  }
  const char order = h->descr.empty() ? '?' : h->descr[0];
  const std::string_view code = h->descr.size() > 1 ? std::string_view(h->descr).substr(1) : std::string_view();
  const NumpyDescr* d = FindNumpyDescr(code);
  if (d == nullptr || (order != '<' && order != '>' && order != '|' && order != '=')) {
    report(Diag::kNumpyHeaderInvalid, header_at,
           "The .npy dtype " + QuoteForMessage(h->descr) + " is not a numeric dtype the audit knows.");
    return wf;
  }
  if (order == '>' && d->size > 1) {
    report(Diag::kPickleDtypeUnsupported, header_at,
           "The .npy dtype " + QuoteForMessage(h->descr) + " is big-endian, which safetensors cannot hold.");
  } else if (d->token.empty()) {
    report(Diag::kPickleDtypeUnsupported, header_at,
           "The .npy dtype " + QuoteForMessage(h->descr) + " has no safetensors dtype token.");
  }
  std::optional<std::uint64_t> bytes = d->size;
  for (std::uint64_t dim : h->shape) bytes = bytes ? CheckedMul(*bytes, dim) : std::nullopt;
  if (!bytes || *bytes != size - data_at) {
    report(in_npz ? Diag::kNpzMemberSize : Diag::kNumpyHeaderInvalid, data_at,
           "The .npy data is " + std::to_string(size - data_at) + " bytes, but its shape and dtype need " +
               (bytes ? std::to_string(*bytes) : std::string("more than 2^64")) + ".");
    return wf;
  }
  StoredTensor t;
  t.name = "";
  t.dtype = d->token.empty() ? h->descr : std::string(d->token);
  t.shape = h->shape;
  t.complete = true;
  t.entry_offset = header_at;
  if (!d->token.empty()) {
    const DtypeInfo* info = FindSafetensorsDtype(d->token);
    t.element = info != nullptr ? info->id : Dtype::kUnknown;
    if (!h->fortran) {
      t.data_offset = data_at;
      t.data_length = *bytes;
      t.begin = data_at;
      t.end = data_at + *bytes;
    }
  }
  wf.tensors.push_back(std::move(t));
  wf.valid = true;
  return wf;
}

bool IsPickleFamily(InputKind kind) { return FormatOf(kind).pickle_family; }

IoResult<WeightFile> ReadPickleFamily(InputKind kind, std::string name, std::unique_ptr<RandomAccessFile> file,
                                      DiagnosticSink& sink) {
  const InputFormat& format = FormatOf(kind);
  if (!format.pickle_family) throw std::logic_error("ReadPickleFamily: not a pickle-family kind");
  return format.read(std::move(name), std::move(file), sink);
}

namespace {

using PickleReader = IoResult<WeightFile> (*)(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink);

IoResult<WeightFile> ReadNpyFile(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink) {
  return ReadNpy(std::move(wf), file, sink);
}

// What every pickle-family read shares: the facts, then `reader`, then the name index.
IoResult<WeightFile> ReadPickleBased(InputKind kind, PickleReader reader, std::string name,
                                     std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.pickle.emplace();
  wf.pickle->container = std::string(InputKindName(kind));
  wf.header_read = true;
  IoResult<WeightFile> out = reader(std::move(wf), *file, sink);
  if (out) {
    out->BuildNameIndex();
    out->file = std::move(file);
  }
  return out;
}

template <InputKind kKind, PickleReader kReader>
IoResult<WeightFile> ReadAs(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  return ReadPickleBased(kKind, kReader, std::move(name), std::move(file), sink);
}

std::optional<std::string> SniffTorchZip(const FileHead& head) {
  // PK\x03\x04, or a spanning marker before it.
  if (!StartsWith(head.bytes, std::string_view("PK\x03\x04", 4)) &&
      !StartsWith(head.bytes, std::string_view("PK\x07\x08PK\x03\x04", 8))) {
    return std::nullopt;
  }
  return "a zip archive (torch.save format)";
}

std::optional<std::string> SniffTorchLegacy(const FileHead& head) {
  if (!StartsWith(head.bytes, kLegacyStart)) return std::nullopt;  // the magic number pickled first
  return "a legacy torch.save checkpoint (stacked pickles)";
}

std::optional<std::string> SniffNumpy(const FileHead& head) {
  if (!StartsWith(head.bytes, "\x93NUMPY")) return std::nullopt;
  return "a NumPy .npy array";
}

// What the head alone calls a file that starts with an opcode and ends with STOP; ClassifyFile
// confirms it by a syntax walk.
std::optional<std::string> SniffPickle(const FileHead& head) {
  if (head.bytes.size() >= 2 && std::to_integer<unsigned>(head.bytes[0]) == 0x80) {
    const unsigned protocol = std::to_integer<unsigned>(head.bytes[1]);
    if (protocol >= 2 && protocol <= 5) return "a Python pickle (protocol " + std::to_string(protocol) + ")";
  }
  // An opcode first: perhaps a pickle without a PROTO opcode (protocols 0 and 1 write none,
  // and CPython runs any opcode in any stream) up to a STOP, whatever follows it.
  if (!head.bytes.empty() && pickle::IsOpcode(head.bytes[0]) && head.last_byte) {
    return std::string(kHeaderlessPickleDescription);
  }
  return std::nullopt;
}

// A pickle guessed without a PROTO opcode is one when a syntax walk reaches its first STOP
// (text that merely starts with an opcode letter is not).
IoResult<bool> ConfirmPickle(const std::string& description, const RandomAccessFile& file) {
  if (description != kHeaderlessPickleDescription) return true;
  constexpr std::uint64_t kSyntaxWalkBound = std::uint64_t{64} << 20;
  return pickle::ParsesAsPickles(file, kSyntaxWalkBound);
}

void PickleInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kPickleFamily;
  item.description = description;
}

// torch loads a zip holding <folder>/data.pkl; other zips are archives (the loader looks again
// at a zip whose first member says nothing).
void TorchZipInInventory(std::span<const std::byte> head, const std::string& /*description*/, InventoryItem& item) {
  const std::string_view first = FirstZipMember(head);
  if (!first.ends_with("data.pkl") && !first.ends_with("/version") && first.find("/data/") == std::string_view::npos) {
    item.kind = InventoryClass::kArchive;
    item.description = "a zip archive";
    return;
  }
  item.kind = InventoryClass::kPickleFamily;
  item.description = "a torch.save checkpoint (zip)";
}

}  // namespace

constexpr std::array<NameSuffix, 4> kTorchNames{{
    {".bin", NamedLoader::kTorch},
    {".pt", NamedLoader::kTorch},
    {".pth", NamedLoader::kTorch},
    {".ckpt", NamedLoader::kTorch},
}};

const InputFormat formats::kTorchZipFormat{
    .kind = InputKind::kTorchZip,
    .sniff = &SniffTorchZip,
    .claims_zip_from_end = true,
    .read = &ReadAs<InputKind::kTorchZip, &ReadTorchZip>,
    .inventory = &TorchZipInInventory,
    .container = PolyglotContainer::kZip,
    .pickle_family = true,
    .torch_loads = TorchLoads::kTorchSave,
    .names = kTorchNames,
    .refused_as_weights = Diag::kWeightsFormatZip,
};

const InputFormat formats::kTorchLegacyFormat{
    .kind = InputKind::kTorchLegacy,
    .sniff = &SniffTorchLegacy,
    .read = &ReadAs<InputKind::kTorchLegacy, &ReadTorchLegacy>,
    .inventory = &PickleInInventory,
    .container = PolyglotContainer::kPickle,
    .pickle_family = true,
    .torch_loads = TorchLoads::kTorchSave,
};

constexpr std::array<NameSuffix, 1> kNumpyNames{{
    {".npy", NamedLoader::kNumpy},
}};

const InputFormat formats::kNumpyFormat{
    .kind = InputKind::kNumpy,
    .sniff = &SniffNumpy,
    .read = &ReadAs<InputKind::kNumpy, &ReadNpyFile>,
    .inventory = &PickleInInventory,
    .container = PolyglotContainer::kNumpy,
    .pickle_family = true,
    .torch_loads = TorchLoads::kArray,
    .names = kNumpyNames,
    .refused_as_weights = Diag::kWeightsFormatNumpy,
};

constexpr std::array<NameSuffix, 2> kPickleNames{{
    // joblib files are often .pkl, and torch.save writes .pkl files too (fastai's export.pkl is a
    // torch zip).
    {".pkl", NamedLoader::kPickle, "a pickle", {InputKind::kTorchZip}, PolyglotContainer::kPickle},
    {".pickle", NamedLoader::kPickle},
}};

const InputFormat formats::kPickleFormat{
    .kind = InputKind::kPickle,
    .sniff = &SniffPickle,
    .confirm = &ConfirmPickle,
    .read = &ReadAs<InputKind::kPickle, &ReadPlainPickle>,
    .inventory = &PickleInInventory,
    .container = PolyglotContainer::kPickle,
    .pickle_family = true,
    .torch_loads = TorchLoads::kPlainPickle,
    .names = kPickleNames,
    .refused_as_weights = Diag::kWeightsFormatPickle,
};

}  // namespace ckpt
