// joblib files (formats.md section 3): what joblib.dump writes, a pickle in which each numeric
// ndarray is a NumpyArrayWrapper whose bytes follow its BUILD, plain or through one of
// joblib's compressors. Recognised by content: a compressed stream (joblib's own prefixes)
// whose first decompressed bytes are a pickle, or a pickle that names the wrapper. Read with
// the pickle analyser in joblib's policy (never unpickled); a compressed file is decompressed
// under hard bounds first (lib/formats/joblib/decompress.h).
#include "lib/formats/joblib/joblib.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/joblib/decompress.h"
#include "lib/formats/pickle/pickle_analyser.h"

namespace ckpt {
namespace {

using joblib::Codec;

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

std::optional<std::string> SniffJoblib(const FileHead& head) {
  if (auto codec = joblib::CodecOf(head.bytes)) {
    if (head.file == nullptr) return std::nullopt;
    auto prefix = joblib::DecompressedPrefix(*head.file, *codec, 2);
    if (!prefix || !StartsAsPickle(*prefix)) return std::nullopt;
    return "a joblib file (" + std::string(joblib::CodecName(*codec)) + "-compressed pickle)";
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
bool JudgeStream(const joblib::StreamFacts& facts, Codec codec, std::uint64_t size, const FileReporter& report) {
  const std::string codec_name(joblib::CodecName(codec));
  using Status = joblib::StreamFacts::Status;
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
  std::array<std::byte, 8> head{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(file->size(), head.size()));
  if (auto read = file->ReadAt(0, std::span(head).first(length)); !read) return read.error();
  const std::optional<Codec> codec = joblib::CodecOf(std::span(head).first(length));
  std::unique_ptr<RandomAccessFile> decompressed;
  const RandomAccessFile* stream = file.get();
  bool readable = true;
  if (codec) {
    facts->compression = std::string(joblib::CodecName(*codec));
    auto measured = joblib::Measure(*file, *codec);
    if (!measured) return measured.error();
    facts->decompressed_size = measured->produced;
    readable = JudgeStream(*measured, *codec, file->size(), report);
    if (readable) {
      decompressed = joblib::DecompressedFile(*file, *codec, std::move(*measured));
      stream = decompressed.get();
    }
  }
  if (readable) {
    pickle::Analyser analyser(wf.name, sink, pickle::StorageMode::kNone, pickle::JoblibFindClass());
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

const InputFormat formats::kJoblibFormat{
    .kind = InputKind::kJoblib,
    .sniff = &SniffJoblib,
    .opening = InputOpening::kSingleFile,
    .layout = &kSingleFileLayout,
    .read = &ReadJoblib,
    .inventory = &JoblibInInventory,
    .container = PolyglotContainer::kPickle,
    .pickle_family = true,
    .refusal = nullptr,
    .resolve_in_folder = nullptr,
    .lone_file_diagnostic = std::nullopt,
};

}  // namespace ckpt
