// joblib files (formats.md section 3): what joblib.dump writes, a pickle in which each numeric
// ndarray is a NumpyArrayWrapper whose bytes follow its BUILD, plain or through one of
// joblib's compressors. Recognised by content: a compressed stream (joblib's own prefixes)
// whose first decompressed bytes are a pickle, or a pickle that names the wrapper. Read with
// the pickle analyser in joblib's policy (never unpickled); a compressed file is decompressed
// under hard bounds first (lib/codec/decompress.h).
#include "lib/formats/joblib/joblib.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/codec/decompress.h"
#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/io/window_file.h"

namespace ckpt {
namespace {

using codec::Codec;

bool StartsAsPickle(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80 && bytes[1] >= 2 && bytes[1] <= 5;
}

// Where the wrapper's global is looked for in an uncompressed pickle: joblib.dump writes the
// first array's wrapper early (a file whose first one comes later is read as a plain pickle,
// where the joblib global is unsafe: it fails closed, never passes).
constexpr std::uint64_t kWrapperSearch = std::uint64_t{1} << 20;

IoResult<bool> NamesTheWrapper(const RandomAccessFile& file) {
  std::string bytes(static_cast<std::size_t>(std::min(kWrapperSearch, file.size())), '\0');
  if (auto read = file.ReadAt(0, std::as_writable_bytes(std::span(bytes))); !read) {
    return IoResult<bool>(boost::system::in_place_error, read.error());
  }
  return bytes.find("joblib.numpy_pickle") != std::string::npos && bytes.find("NumpyArrayWrapper") != std::string::npos;
}

// joblib before 0.9.3 wrote "ZF", the decompressed length as Python's hex() padded with
// spaces to 19 bytes (Python 2's joblib <= 0.8.4 one space more), then a zlib stream; current
// joblib still loads it (numpy_pickle_compat.read_zfile) with Python's own unpickler.
struct ZfileHeader {
  std::uint64_t declared = 0;   ///< the decompressed length the header gives
  std::uint64_t stream_at = 0;  ///< where the zlib stream starts
};
constexpr std::size_t kZfilePrefix = 2;
constexpr std::size_t kZfileLengthField = 19;  // len(hex(2**64))

bool IsPythonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// int(field, 16) as Python reads it, for the forms hex() writes: optional whitespace, an
// optional 0x, hex digits. Anything else (which Python may or may not take) is not read.
std::optional<ZfileHeader> ParseZfileHeader(std::span<const std::byte> head) {
  if (head.size() < kZfilePrefix + kZfileLengthField + 1 || !StartsWith(head, "ZF")) return std::nullopt;
  std::string_view field = AsStringView(head.subspan(kZfilePrefix, kZfileLengthField));
  while (!field.empty() && IsPythonSpace(field.front())) field.remove_prefix(1);
  while (!field.empty() && IsPythonSpace(field.back())) field.remove_suffix(1);
  if (field.size() > 2 && field[0] == '0' && (field[1] == 'x' || field[1] == 'X')) field.remove_prefix(2);
  if (field.empty() || field.size() > 16) return std::nullopt;
  ZfileHeader header;
  for (const char c : field) {
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return std::nullopt;
    header.declared = header.declared * 16 + static_cast<std::uint64_t>(digit);
  }
  header.stream_at = kZfilePrefix + kZfileLengthField;
  if (std::to_integer<char>(head[header.stream_at]) == ' ') ++header.stream_at;  // zlib never starts with a space
  return header;
}

std::optional<std::string> SniffJoblib(const FileHead& head) {
  if (auto zfile = ParseZfileHeader(head.bytes)) {
    if (head.file == nullptr || zfile->stream_at >= head.file->size()) return std::nullopt;
    const WindowFile stream(*head.file, zfile->stream_at, head.file->size() - zfile->stream_at);
    auto prefix = codec::DecompressedPrefix(stream, Codec::kZlib, 2);
    if (!prefix || !StartsAsPickle(*prefix)) return std::nullopt;
    return "a joblib file (the ZF format of joblib before 0.9.3: a zlib-compressed pickle)";
  }
  if (auto codec = codec::CodecOf(head.bytes)) {
    if (head.file == nullptr) return std::nullopt;
    auto prefix = codec::DecompressedPrefix(*head.file, *codec, 2);
    if (!prefix || !StartsAsPickle(*prefix)) return std::nullopt;
    return "a joblib file (" + std::string(codec::CodecName(*codec)) + "-compressed pickle)";
  }
  if (!StartsAsPickle(AsStringView(head.bytes)) || head.file == nullptr) return std::nullopt;
  auto names = NamesTheWrapper(*head.file);
  if (!names || !*names) return std::nullopt;
  return "a joblib file (pickle)";
}

std::string Ratio(std::uint64_t out, std::uint64_t in) {
  if (in == 0) return "unbounded";
  return std::to_string(out / in) + ":1";
}

// Reports what the measuring pass found wrong; true when the stream can be analysed.
bool JudgeStream(const codec::StreamFacts& facts, Codec codec, std::uint64_t size, const FileReporter& report) {
  const std::string codec_name(codec::CodecName(codec));
  using Status = codec::StreamFacts::Status;
  switch (facts.status) {
    case Status::kBomb:
      report(Diag::kJoblibDecompressionBomb, 0,
             "The " + codec_name + " stream decompresses past its bound: more than " + std::to_string(facts.bound) +
                 " bytes out from the first " + std::to_string(facts.consumed) + " of its " + std::to_string(size) +
                 " bytes (ratio " + Ratio(facts.produced, facts.consumed) +
                 "; the bound is max(64 MiB, 2,000 x the compressed size), at most 4 GiB): the read stopped there.");
      return false;
    case Status::kCorrupt:
      report(Diag::kJoblibCompressionInvalid, facts.consumed,
             "The " + codec_name + " stream is corrupt at byte " + std::to_string(facts.consumed) + " (" +
                 QuoteForMessage(facts.error, 120) + ") after " + std::to_string(facts.produced) +
                 " bytes of output: joblib.load fails there, or reads what another decoder would not.");
      return false;
    case Status::kTruncated:
      report(Diag::kJoblibCompressionInvalid, size,
             "The " + codec_name + " stream ends at byte " + std::to_string(size) + " before its end marker (after " +
                 std::to_string(facts.produced) + " bytes of output): the file is truncated.");
      return false;
    case Status::kComplete:
      break;
  }
  if (facts.trailing_at) {
    report(Diag::kPickleTrailingData, *facts.trailing_at,
           std::to_string(size - *facts.trailing_at) + " bytes after the end of the " + codec_name +
               " stream at byte " + std::to_string(*facts.trailing_at) +
               " are not another stream: one decoder ignores them, another fails on them.");
  }
  return true;
}

// The tensor listed for array `named` (a wrapper's), located in the file when its bytes are
// there as stored (an uncompressed file, C order).
StoredTensor ArrayTensor(const pickle::Analyser& analyser, const pickle::NamedTensor& named, bool located) {
  const pickle::RebuiltTensor& t = analyser.tensors()[named.tensor];
  StoredTensor s;
  s.name = named.name;
  s.shape = t.shape;
  s.entry_offset = t.offset;
  s.complete = t.valid;
  const bool little = t.torch_dtype.empty() || t.torch_dtype[0] != '>' || t.element_size == 1;
  if (t.dtype != nullptr && little) {
    s.dtype = std::string(t.dtype->safetensors);
    s.element = t.dtype->id;
  } else if (t.torch_dtype.size() > 1 && t.torch_dtype.substr(1) == "c16") {
    s.dtype = "C128";
  } else {
    s.dtype = t.torch_dtype;  // "OTHER" (a structured dtype), or the descr numpy prints (">f4")
  }
  if (!located || !t.contiguous || s.element == Dtype::kUnknown) return s;
  for (const pickle::JoblibArray& a : analyser.joblib_arrays()) {
    if (a.tensor != named.tensor) continue;
    s.data_offset = a.body_offset;
    s.data_length = a.body_length;
    s.begin = a.body_offset;
    s.end = a.body_offset + a.body_length;
  }
  return s;
}

IoResult<WeightFile> ReadJoblib(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  wf.pickle.emplace();
  wf.pickle->container = "joblib";
  auto facts = std::make_shared<joblib::JoblibFacts>();
  const FileReporter report(wf.name, sink);
  std::array<std::byte, kZfilePrefix + kZfileLengthField + 1> head{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(file->size(), head.size()));
  if (auto read = file->ReadAt(0, std::span(head).first(length)); !read) return read.error();
  const std::optional<ZfileHeader> zfile = ParseZfileHeader(std::span(head).first(length));
  const std::optional<Codec> codec = zfile ? Codec::kZlib : codec::CodecOf(std::span(head).first(length));
  // A ZF file's zlib stream, read as a file of its own (offsets in findings count from it).
  std::unique_ptr<WindowFile> zfile_stream;
  if (zfile) zfile_stream = std::make_unique<WindowFile>(*file, zfile->stream_at, file->size() - zfile->stream_at);
  const RandomAccessFile& compressed = zfile_stream ? *zfile_stream : *file;
  std::unique_ptr<RandomAccessFile> decompressed;
  const RandomAccessFile* stream = file.get();
  bool readable = true;
  if (codec) {
    facts->compression = zfile ? std::string("zf") : std::string(codec::CodecName(*codec));
    auto measured = codec::Measure(compressed, *codec);
    if (!measured) return measured.error();
    facts->decompressed_size = measured->produced;
    readable = JudgeStream(*measured, *codec, compressed.size(), report);
    if (readable && zfile && measured->produced != zfile->declared) {
      report(Diag::kJoblibCompressionInvalid, kZfilePrefix,
             "The ZF header declares " + std::to_string(zfile->declared) + " decompressed bytes but its zlib stream " +
                 "holds " + std::to_string(measured->produced) +
                 ": joblib's read_zfile asserts they are equal, and skips the check under python -O.");
      readable = false;
    }
    if (readable) {
      decompressed = codec::DecompressedFile(compressed, *codec, std::move(*measured));
      stream = decompressed.get();
    }
  }
  if (readable) {
    // A ZF file's pickle is read by Python's own unpickler: a NumpyArrayWrapper there reads no bytes.
    pickle::Analyser analyser(wf.name, sink, pickle::StorageMode::kNone, pickle::JoblibFindClass(!zfile));
    std::uint32_t pickles = 0;
    auto run = pickle::AnalyseStream(analyser, *stream, 0, stream->size(), report, pickles);
    if (!run) return run.error();
    wf.pickle->pickles = pickles;
    wf.pickle->unsafe = analyser.unsafe();
    if (*run && (*run)->root) {
      for (const pickle::NamedTensor& named : analyser.ListTensors(*(*run)->root, 0, &wf.pickle->not_tensors)) {
        wf.tensors.push_back(ArrayTensor(analyser, named, !codec));
      }
    }
    wf.valid = true;
  }
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

void JoblibInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kPickleFamily;
  item.description = description;
}

}  // namespace

void joblib::JoblibFacts::Describe(boost::json::object& fields) const {
  if (!compression.empty()) fields["compression"] = compression;
}

constexpr std::array<NameSuffix, 1> kJoblibNames{{
    // joblib.dump of objects without arrays is a plain pickle: any pickle fits the name.
    {".joblib", NamedLoader::kPickle, "a joblib file", {}, PolyglotContainer::kPickle},
}};

const InputFormat formats::kJoblibFormat{
    .kind = InputKind::kJoblib,
    .sniff = &SniffJoblib,
    .read = &ReadJoblib,
    .inventory = &JoblibInInventory,
    .container = PolyglotContainer::kPickle,
    .pickle_family = true,
    .names = kJoblibNames,
};

}  // namespace ckpt
