#include "lib/formats/gguf/gguf_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory_resource>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/io/file_cursor.h"
#include "lib/metadata/chat_templates.h"
#include "lib/metadata/import_targets.h"

namespace ckpt {
namespace {

// ggml's type table (ggml.c type_traits): removed ids (4, 5, 31-33, 36-38) are absent.
constexpr std::array<GgmlType, 36> kTypes{{
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},     {255, "", 0, 0},
}};

constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 63;  // dims, counts and sizes stay below
constexpr std::uint64_t kMaxNameBytes = 63;                 // GGML_MAX_NAME holds 64 with the NUL

// Value types 0..12 and the fewest bytes one of them takes (an array: type + count).
enum ValueType : std::uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};
constexpr std::array<std::string_view, 13> kTypeNames = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                                         "bool", "string", "array", "u64", "i64", "f64"};
std::uint64_t MinimumSize(std::uint32_t type) {
  switch (type) {
    case kU8:
    case kI8:
    case kBool:
      return 1;
    case kU16:
    case kI16:
      return 2;
    case kU32:
    case kI32:
    case kF32:
      return 4;
    case kString:
      return 8;
    case kArray:
      return 12;
    default:
      return 8;
  }
}

std::optional<std::uint64_t> AlignUp(std::uint64_t value, std::uint64_t alignment) {
  auto sum = CheckedAdd(value, alignment - 1);
  if (!sum) return std::nullopt;
  return *sum / alignment * alignment;
}

std::uint64_t Le(std::string_view b) {
  std::uint64_t v = 0;
  for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

// A float as %g writes it with enough digits to read back (1e-05, 0.5, inf).
std::string Shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// A GGUF string is valid when it is UTF-8 without NUL.
bool ValidText(std::string_view s) { return s.find('\0') == std::string_view::npos && !FindInvalidUtf8(s); }

// Thrown inside the reader to end it after a finding (the header cannot be walked further).
struct Stop {};

class Reader {
 public:
  Reader(std::string name, const RandomAccessFile& file, DiagnosticSink& sink)
      : report_(std::move(name), sink), file_(file), cursor_(file, 0, file.size()) {}

  IoResult<void> Read(WeightFile& wf);

 private:
  std::uint64_t U(std::size_t bytes, const char* what) {
    auto b = cursor_.Take(bytes);
    if (!b) throw b.error();
    if (!*b) {
      report_(Diag::kGgufLengthInvalid, cursor_.position(),
              std::string("The file ends inside ") + what + " at byte " + std::to_string(cursor_.position()) +
                  " (truncated).");
      throw Stop{};
    }
    return Le(**b);
  }
  // A length-prefixed string: the length is checked against the bytes left first.
  std::string String(const char* what) {
    const std::uint64_t at = cursor_.position();
    const std::uint64_t n = U(8, what);
    if (n > cursor_.left()) {
      report_(Diag::kGgufLengthInvalid, at,
              std::string(what) + " at byte " + std::to_string(at) + " claims " + std::to_string(n) +
                  " bytes, more than the " + std::to_string(cursor_.left()) + " left in the file.");
      throw Stop{};
    }
    auto b = cursor_.Take(n);
    if (!b) throw b.error();
    return std::string(**b);
  }
  void Value(std::uint32_t type, std::uint64_t at, GgufFacts::Entry& entry, bool top);
  // A string value that holds a configuration: its import targets outside the allowlist.
  void ReportTargets(const std::string& key, std::string_view value, std::uint64_t at);

  // A tensor info as read, before the layout places it.
  struct Info {
    std::uint64_t at;
    const GgmlType* type;
    std::uint64_t offset;
    std::uint64_t bytes;
    bool valid;
  };
  struct Counts {
    std::uint64_t tensors = 0;
    std::uint64_t kvs = 0;
  };
  // The steps of Read; nullopt / false: a finding ends the read there.
  std::optional<Counts> ReadPreamble();
  bool ReadKeyValues(std::uint64_t count);
  bool ReadTensorInfos(std::uint64_t count, WeightFile& wf, std::vector<Info>& infos);
  std::optional<Info> ReadTensorInfo(std::set<std::string>& names, StoredTensor& t);
  IoResult<void> CheckLayout(WeightFile& wf, const std::vector<Info>& infos);
  IoResult<void> CheckTail(std::uint64_t tail_from, bool after_tensor);

  FileReporter report_;
  const RandomAccessFile& file_;
  FileCursor cursor_;
  GgufFacts facts_;
  EmbeddedCode embedded_;
  bool nested_reported_ = false;
};

void Reader::ReportTargets(const std::string& key, std::string_view value, std::uint64_t at) {
  const YamlConfig config = FindTargetsInString(value);
  RecordTargets(config.targets, report_.file(), key, embedded_);
  for (std::string& problem : EmbeddedConfigProblems("The GGUF value " + QuoteForMessage(key), config)) {
    report_(Diag::kConfigTargetUnsafe, at, std::move(problem));
  }
}

// One value of `type`, arrays walked with an explicit stack (nesting is data, not recursion).
void Reader::Value(std::uint32_t type, std::uint64_t at, GgufFacts::Entry& entry, bool top) {
  auto scalar = [&](std::uint32_t t, std::string& out) {
    const std::uint64_t here = cursor_.position();
    switch (t) {
      case kString: {
        std::string s = String("A string value");
        if (!ValidText(s)) {
          report_(Diag::kGgufStringInvalid, here,
                  "The string value of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(here) +
                      " is not UTF-8 without NUL.");
        }
        if (out.size() < 240) out += QuoteForMessage(s, 200);
        // Every template, the named ones (tool_use, rag, ...) too, parsed as Jinja parses it
        // (code-in-metadata.md section 3): nothing of it is kept.
        if (top && (entry.key == "tokenizer.chat_template" || entry.key.starts_with("tokenizer.chat_template."))) {
          TemplateSite site{entry.key, {}};
          site.at.file = report_.file();
          site.at.byte_offset = here;
          ReportChatTemplate(site, s, report_.sink(), &embedded_);
        }
        // A configuration kept as a string (code-in-metadata.md section 1): its import targets.
        if (top && entry.key.ends_with("config")) ReportTargets(entry.key, s, here);
        return;
      }
      case kBool: {
        const std::uint64_t v = U(1, "a bool value");
        if (v > 1) {
          report_(Diag::kGgufValueTypeInvalid, here,
                  "The bool value of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(here) + " is " +
                      std::to_string(v) + ", not 0 or 1.");
        }
        if (out.size() < 240) out += v != 0 ? "true" : "false";
        return;
      }
      case kF32: {
        const auto bits = static_cast<std::uint32_t>(U(4, "a f32 value"));
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        if (out.size() < 240) out += Shortest(static_cast<double>(f));
        return;
      }
      case kF64: {
        const std::uint64_t bits = U(8, "a f64 value");
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        if (out.size() < 240) out += Shortest(d);
        return;
      }
      default: {
        const std::uint64_t width = MinimumSize(t);
        const std::uint64_t raw = U(static_cast<std::size_t>(width), "an integer value");
        const bool is_signed = t == kI8 || t == kI16 || t == kI32 || t == kI64;
        std::int64_t v = static_cast<std::int64_t>(raw);
        if (is_signed && width < 8 && (raw >> (8 * width - 1)) != 0)
          v = static_cast<std::int64_t>(raw | (~std::uint64_t{0} << (8 * width)));
        if (out.size() < 240) out += is_signed ? std::to_string(v) : std::to_string(raw);
        if (top) {
          if (entry.key == "split.no") facts_.split_no = raw;
          if (entry.key == "split.count") facts_.split_count = raw;
          if (entry.key == "split.tensors.count") facts_.split_tensors_count = raw;
        }
        return;
      }
    }
  };
  if (type != kArray) {
    entry.type = std::string(kTypeNames[type]);
    scalar(type, entry.value);
    return;
  }
  // Arrays: (element type, elements left) frames.
  struct Frame {
    std::uint32_t type;
    std::uint64_t left;
    std::uint64_t shown;
    bool visible;  // its parent shows it: a summarised array prints nothing, brackets included
  };
  std::vector<Frame> frames;
  auto open = [&](std::uint64_t here, bool visible) {
    const std::uint32_t element = static_cast<std::uint32_t>(U(4, "an array's element type"));
    const std::uint64_t count = U(8, "an array's count");
    if (element > kF64) {
      report_(Diag::kGgufValueTypeInvalid, here,
              "An array of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(here) + " has element type " +
                  std::to_string(element) + ", not one of 0..12.");
      throw Stop{};
    }
    auto bytes = CheckedMul(count, MinimumSize(element));
    if (!bytes || *bytes > cursor_.left()) {
      report_(Diag::kGgufLengthInvalid, here,
              "An array of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(here) + " claims " +
                  std::to_string(count) + " elements of " + std::string(kTypeNames[element]) + ", more than the " +
                  std::to_string(cursor_.left()) + " bytes left hold.");
      throw Stop{};
    }
    if (element == kArray && !nested_reported_) {
      nested_reported_ = true;
      report_(Diag::kGgufNestedArray, here,
              "The value of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(here) +
                  " is an array of arrays: valid GGUF, but ggml's loader refuses it.");
    }
    if (entry.type.empty())
      entry.type = "array<" + std::string(kTypeNames[element]) + ">[" + std::to_string(count) + "]";
    if (visible) entry.value += "[";
    frames.push_back({element, count, 0, visible});
  };
  open(at, true);
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.left == 0) {
      if (f.visible) entry.value += "]";
      frames.pop_back();
      continue;
    }
    --f.left;
    const bool show = f.visible && f.shown < 4 && entry.value.size() < 240;
    if (f.shown > 0 && show) entry.value += ", ";
    if (f.shown == 4 && f.visible) entry.value += ", ...";
    ++f.shown;
    if (f.type == kArray) {
      open(cursor_.position(), show);
      continue;
    }
    std::string ignored;
    scalar(f.type, show ? entry.value : ignored);
  }
}

IoResult<void> Reader::Read(WeightFile& wf) {
  try {
    const std::optional<Counts> counts = ReadPreamble();
    std::vector<Info> infos;
    if (counts && ReadKeyValues(counts->kvs) && ReadTensorInfos(counts->tensors, wf, infos)) {
      if (auto checked = CheckLayout(wf, infos); !checked) return checked.error();
    }
  } catch (const Stop&) {
  } catch (const boost::system::error_code& error) {
    return error;
  }
  wf.gguf = std::move(facts_);
  wf.embedded_code = std::move(embedded_);
  return {};
}

std::optional<Reader::Counts> Reader::ReadPreamble() {
  const std::uint64_t magic = U(4, "the magic number");
  if (magic != 0x46554747) {  // "GGUF"
    report_(Diag::kGgufHeaderInvalid, 0, "The file does not start with the GGUF magic number.");
    return std::nullopt;
  }
  const std::uint64_t version = U(4, "the version");
  if (version != 2 && version != 3) {
    std::string why = version == 1 ? "version 1 (32-bit counts) is not read"
                      : (version & 0xFFFF) == 0 && version != 0
                          ? "a byte-swapped (big-endian) version; only little-endian GGUF is read"
                          : "only versions 2 and 3 exist";
    report_(Diag::kGgufHeaderInvalid, 4, "The GGUF version is " + std::to_string(version) + ": " + why + ".");
    return std::nullopt;
  }
  facts_.version = static_cast<std::uint32_t>(version);
  const std::uint64_t tensor_count = U(8, "the tensor count");
  const std::uint64_t kv_count = U(8, "the key/value count");
  auto least = CheckedMul(kv_count, 13);
  auto tensors_least = CheckedMul(tensor_count, 32);
  auto total = least && tensors_least ? CheckedAdd(*least, *tensors_least) : std::nullopt;
  if (!total || *total > cursor_.left()) {
    report_(Diag::kGgufLengthInvalid, 8,
            "The header claims " + std::to_string(tensor_count) + " tensors and " + std::to_string(kv_count) +
                " key/values, more than the " + std::to_string(cursor_.left()) +
                " bytes left can hold (at least 32 and 13 bytes each).");
    return std::nullopt;
  }
  return Counts{tensor_count, kv_count};
}

bool Reader::ReadKeyValues(std::uint64_t count) {
  // Every key, for duplicates (the listing is bounded). The nodes come from one arena: a
  // million keys cost a million mallocs and frees otherwise, a fifth of the read.
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_set<std::pmr::string> keys(&arena);
  keys.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, std::uint64_t{1} << 20)));
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = cursor_.position();
    GgufFacts::Entry entry;
    entry.key = String("A key");
    if (entry.key.empty() || !ValidText(entry.key)) {
      report_(Diag::kGgufStringInvalid, at,
              "Key " + std::to_string(i) + " at byte " + std::to_string(at) + " is " +
                  (entry.key.empty() ? std::string("empty") : QuoteForMessage(entry.key) + ", not UTF-8 without NUL") +
                  ".");
    }
    if (!keys.emplace(entry.key).second) {
      report_(Diag::kGgufDuplicateKey, at,
              "Key " + QuoteForMessage(entry.key) + " at byte " + std::to_string(at) + " appears twice.");
    }
    const std::uint64_t type_at = cursor_.position();
    const std::uint32_t type = static_cast<std::uint32_t>(U(4, "a value type"));
    if (type > kF64) {
      report_(Diag::kGgufValueTypeInvalid, type_at,
              "The value of " + QuoteForMessage(entry.key) + " at byte " + std::to_string(type_at) + " has type " +
                  std::to_string(type) + ", not one of 0..12.");
      return false;
    }
    Value(type, type_at, entry, true);
    if (entry.key == "general.alignment") {
      const bool power = type == kU32 && !entry.value.empty() && std::stoull(entry.value) != 0 &&
                         (std::stoull(entry.value) & (std::stoull(entry.value) - 1)) == 0;
      if (!power) {
        report_(Diag::kGgufAlignmentInvalid, type_at,
                "general.alignment is " + entry.type + " " + entry.value + ", not a u32 power of two.");
        return false;
      }
      facts_.alignment = std::stoull(entry.value);
    }
    if (facts_.metadata.size() < kMaxListedGgufMetadata) {
      facts_.metadata.push_back(std::move(entry));
    } else {
      ++facts_.metadata_not_listed;
    }
  }
  return true;
}

bool Reader::ReadTensorInfos(std::uint64_t count, WeightFile& wf, std::vector<Info>& infos) {
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < count; ++i) {
    StoredTensor t;
    const std::optional<Info> info = ReadTensorInfo(names, t);
    if (!info) return false;
    infos.push_back(*info);
    wf.tensors.push_back(std::move(t));
  }
  return true;
}

std::optional<Reader::Info> Reader::ReadTensorInfo(std::set<std::string>& names, StoredTensor& t) {
  const std::uint64_t at = cursor_.position();
  t.name = String("A tensor name");
  t.entry_offset = at;
  bool valid = true;
  if (t.name.size() > kMaxNameBytes || !ValidText(t.name)) {
    report_(
        Diag::kGgufTensorNameInvalid, at,
        "Tensor name " + QuoteForMessage(t.name) + " at byte " + std::to_string(at) +
            (t.name.size() > kMaxNameBytes ? " is " + std::to_string(t.name.size()) + " bytes; ggml holds at most 63"
                                           : std::string(" is not UTF-8 without NUL")) +
            ".");
    valid = false;
  }
  if (!names.insert(t.name).second) {
    report_(Diag::kGgufDuplicateTensor, at,
            "Tensor " + QuoteForMessage(t.name) + " at byte " + std::to_string(at) + " is named twice.");
    valid = false;
  }
  const std::uint64_t rank = U(4, "a tensor's rank");
  if (rank < 1 || rank > 4) {
    report_(Diag::kGgufRankInvalid, at,
            "Tensor " + QuoteForMessage(t.name) + " has rank " + std::to_string(rank) + "; ggml holds 1 to 4.");
    return std::nullopt;  // the dims cannot be walked
  }
  for (std::uint64_t d = 0; d < rank; ++d) t.shape.push_back(U(8, "a tensor's dims"));
  const std::uint64_t type_id = U(4, "a tensor's type");
  const std::uint64_t offset = U(8, "a tensor's offset");
  const GgmlType* type = type_id <= 0xFFFFFFFFU ? FindGgmlType(static_cast<std::uint32_t>(type_id)) : nullptr;
  if (type == nullptr) {
    const bool removed =
        type_id == 4 || type_id == 5 || (type_id >= 31 && type_id <= 33) || (type_id >= 36 && type_id <= 38);
    report_(Diag::kGgufTypeUnknown, at,
            "Tensor " + QuoteForMessage(t.name) + " has ggml type " + std::to_string(type_id) +
                (removed ? ", which ggml removed" : ", which ggml does not have") + ".");
    valid = false;
  }
  t.dtype = type != nullptr ? std::string(type->name) : "type " + std::to_string(type_id);
  // Elements and bytes, each step below 2^63; the first dim a multiple of the block.
  std::optional<std::uint64_t> numel = 1;
  for (std::uint64_t d : t.shape) {
    numel = numel && d < kMaxSize ? CheckedMul(*numel, d) : std::nullopt;
    if (numel && *numel >= kMaxSize) numel.reset();
  }
  std::optional<std::uint64_t> bytes;
  if (type != nullptr && numel) {
    if (t.shape[0] % type->block_size != 0) {
      report_(Diag::kGgufShapeInvalid, at,
              "The first dim of tensor " + QuoteForMessage(t.name) + ", " + std::to_string(t.shape[0]) + "," +
                  " is not a multiple of " + std::string(type->name) + "'s block of " +
                  std::to_string(type->block_size) + ".");
      valid = false;
    } else {
      bytes = CheckedMul(*numel / type->block_size, type->type_size);
      if (bytes && *bytes >= kMaxSize) bytes.reset();
    }
  }
  if (!numel || (type != nullptr && valid && !bytes)) {
    report_(Diag::kGgufShapeInvalid, at, "The dims of tensor " + QuoteForMessage(t.name) + " give a size past 2^63.");
    valid = false;
  }
  t.complete = type != nullptr;
  if (type != nullptr) {
    const DtypeInfo* d = FindSafetensorsDtype(type->name);
    t.element = d != nullptr && type->block_size == 1 ? d->id : Dtype::kUnknown;
  }
  return Info{at, type, offset, bytes.value_or(0), valid && bytes.has_value()};
}

// The data section at the aligned end of the infos; each tensor at the aligned end of the
// previous one; the last inside the file; then only zero padding.
IoResult<void> Reader::CheckLayout(WeightFile& wf, const std::vector<Info>& infos) {
  const std::uint64_t size = file_.size();
  auto start = AlignUp(cursor_.position(), facts_.alignment);
  facts_.data_start = start.value_or(size);
  bool layout = start.has_value();
  std::uint64_t expected = 0;
  std::uint64_t end = 0;  // relative end of the last tensor's bytes
  for (std::size_t i = 0; i < infos.size() && layout; ++i) {
    const Info& info = infos[i];
    StoredTensor& t = wf.tensors[i];
    if (!info.valid) {
      layout = false;
      break;
    }
    if (info.offset != expected) {
      report_(Diag::kGgufOffsetInvalid, info.at,
              "Tensor " + QuoteForMessage(t.name) + " is at data offset " + std::to_string(info.offset) +
                  "; ggml's layout puts it at " + std::to_string(expected) + " (" +
                  (info.offset % facts_.alignment != 0 ? "misaligned"
                   : info.offset < expected            ? "overlapping"
                                                       : "a gap") +
                  ").");
      layout = false;
      break;
    }
    auto absolute = CheckedAdd(*start, info.offset);
    auto stop = absolute ? CheckedAdd(*absolute, info.bytes) : std::nullopt;
    if (!stop || *stop > size) {
      report_(Diag::kGgufDataPastEnd, info.at,
              "The " + std::to_string(info.bytes) + " bytes of tensor " + QuoteForMessage(t.name) + " at byte " +
                  std::to_string(absolute.value_or(0)) + " run past the end of the file (" + std::to_string(size) +
                  " bytes).");
      layout = false;
      break;
    }
    t.data_offset = *absolute;
    t.data_length = info.bytes;
    t.begin = *absolute;
    t.end = *stop;
    end = info.offset + info.bytes;
    auto next = AlignUp(end, facts_.alignment);
    if (!next) {
      layout = false;
      break;
    }
    expected = *next;
  }
  if (layout) {
    // After the last tensor (or the key/values), only zero padding up to the alignment.
    const std::uint64_t tail_from = infos.empty() ? cursor_.position() : *start + end;
    if (auto checked = CheckTail(tail_from, !infos.empty()); !checked) return checked.error();
  }
  facts_.layout_valid = layout;
  return {};
}

IoResult<void> Reader::CheckTail(std::uint64_t tail_from, bool after_tensor) {
  const std::uint64_t size = file_.size();
  auto allowed = AlignUp(tail_from, facts_.alignment);
  if (size > tail_from) {
    const std::uint64_t n = size - tail_from;
    bool zero = allowed && size <= *allowed;
    if (zero) {
      std::vector<std::byte> pad(static_cast<std::size_t>(n));
      if (auto read = file_.ReadAt(tail_from, pad); !read) return read.error();
      zero = std::all_of(pad.begin(), pad.end(), [](std::byte b) { return b == std::byte{0}; });
    }
    if (!zero) {
      report_(Diag::kGgufTrailingData, tail_from,
              std::to_string(n) + " bytes follow the " + (after_tensor ? "last tensor" : "key/values") + " at byte " +
                  std::to_string(tail_from) + "; only zero padding up to the alignment of " +
                  std::to_string(facts_.alignment) + " may.");
    }
  }
  return {};
}

}  // namespace

std::span<const GgmlType> GgmlTypes() { return std::span(kTypes).first(kTypes.size() - 1); }

const GgmlType* FindGgmlType(std::uint32_t id) {
  for (const GgmlType& t : GgmlTypes()) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

std::optional<GgufSplitName> ParseGgufSplitName(std::string_view file_name) {
  // <prefix>-IIIII-of-NNNNN.gguf
  constexpr std::string_view kSuffix = ".gguf";
  if (!file_name.ends_with(kSuffix) || file_name.size() < kSuffix.size() + 16) return std::nullopt;
  const std::string_view core = file_name.substr(0, file_name.size() - kSuffix.size());
  const std::string_view tail = core.substr(core.size() - 15);  // -IIIII-of-NNNNN
  auto digits = [](std::string_view d) {
    return d.size() == 5 && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-" || !digits(tail.substr(1, 5)) || !digits(tail.substr(10, 5))) {
    return std::nullopt;
  }
  GgufSplitName out;
  out.prefix = std::string(core.substr(0, core.size() - 15));
  out.index = static_cast<std::uint32_t>(std::stoul(std::string(tail.substr(1, 5))));
  out.count = static_cast<std::uint32_t>(std::stoul(std::string(tail.substr(10, 5))));
  if (out.index == 0 || out.count == 0 || out.index > out.count) return std::nullopt;
  return out;
}

void CheckGgufSplitSet(const GgufSplitName& expected, std::span<const WeightFile* const> parts, DiagnosticSink& sink) {
  std::vector<const WeightFile*> by_index(expected.count + 1, nullptr);
  for (const WeightFile* part : parts) {
    const FileReporter report(part->name, sink);
    auto name = ParseGgufSplitName(part->name);
    if (!name || name->prefix != expected.prefix || name->count != expected.count) {
      report(Diag::kGgufSplitIncomplete, 0,
             QuoteForMessage(part->name) + " is not a part of the " + std::to_string(expected.count) + "-part set " +
                 QuoteForMessage(expected.prefix) + ".");
      continue;
    }
    by_index[name->index] = part;
    if (!part->gguf) continue;
    const GgufFacts& f = *part->gguf;
    if (f.split_count != expected.count || f.split_no != name->index - 1) {
      report(Diag::kGgufSplitIncomplete, 0,
             QuoteForMessage(part->name) + " says split.no " +
                 (f.split_no ? std::to_string(*f.split_no) : std::string("(none)")) + " and split.count " +
                 (f.split_count ? std::to_string(*f.split_count) : std::string("(none)")) + "; its name says part " +
                 std::to_string(name->index) + " (split.no " + std::to_string(name->index - 1) + ") of " +
                 std::to_string(expected.count) + ".");
    }
  }
  const WeightFile* first = by_index.size() > 1 ? by_index[1] : nullptr;
  for (std::uint32_t i = 1; i <= expected.count; ++i) {
    if (by_index[i] != nullptr) continue;
    char name[32];
    std::snprintf(name, sizeof name, "-%05u-of-%05u.gguf", i, expected.count);
    const FileReporter report(first != nullptr ? first->name : std::string(), sink);
    report(Diag::kGgufSplitIncomplete, 0,
           "Part " + QuoteForMessage(expected.prefix + name) +
               " of the split set is missing: the model loads only whole.");
  }
  // Tensors: the count the first part announces, and each name in one part only.
  std::map<std::string, std::string> owner;
  std::uint64_t total = 0;
  for (std::uint32_t i = 1; i <= expected.count; ++i) {
    const WeightFile* part = by_index[i];
    if (part == nullptr) continue;
    const FileReporter report(part->name, sink);
    for (const StoredTensor& t : part->tensors) {
      ++total;
      auto [it, inserted] = owner.emplace(t.name, part->name);
      if (!inserted) {
        report(Diag::kGgufSplitInconsistent, t.entry_offset,
               "Tensor " + QuoteForMessage(t.name) + " is in " + QuoteForMessage(it->second) + " and in " +
                   QuoteForMessage(part->name) + ".");
      }
    }
  }
  if (first != nullptr && first->gguf && first->gguf->split_tensors_count &&
      *first->gguf->split_tensors_count != total) {
    const FileReporter report(first->name, sink);
    report(Diag::kGgufSplitInconsistent, 0,
           "split.tensors.count is " + std::to_string(*first->gguf->split_tensors_count) + ", but the parts hold " +
               std::to_string(total) + " tensors.");
  }
}

IoResult<WeightFile> ReadGguf(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = name;
  wf.size = file->size();
  wf.header_read = true;
  Reader reader(std::move(name), *file, sink);
  if (auto read = reader.Read(wf); !read) return read.error();
  if (!wf.gguf) wf.gguf.emplace();  // the header ended early: its findings say where
  wf.valid = wf.gguf->layout_valid;
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

namespace {

std::optional<std::string> SniffGguf(const FileHead& head) {
  if (!StartsWith(head.bytes, "GGUF")) return std::nullopt;
  return "a GGUF model file";
}

void GgufInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kGguf;
  item.description = description;
}

}  // namespace

// A GGUF file; its first split part stands for the set (inputs.md section 5).
constexpr std::array<NameSuffix, 1> kGgufNames{{
    {".gguf", NamedLoader::kGguf},
}};

const InputFormat formats::kGgufFormat{
    .kind = InputKind::kGguf,
    .sniff = &SniffGguf,
    .opening = InputOpening::kGgufSet,
    .read = &ReadGguf,
    .inventory = &GgufInInventory,
    .container = PolyglotContainer::kGguf,
    .names = kGgufNames,
    .refused_as_weights = Diag::kWeightsFormatGguf,
};

}  // namespace ckpt
