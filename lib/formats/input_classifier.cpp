#include "lib/formats/input_classifier.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "lib/codec/decompress.h"
#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/pickle/pickle_analyser.h"
#include "lib/formats/safetensors/safetensors_reader.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/json/strict_parser.h"

namespace ckpt {
IoResult<ClassifiedFile> ClassifyFile(const RandomAccessFile& file) {
  std::array<std::byte, kClassifyLength> head{};
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), head.size()));
  if (auto read = file.ReadAt(0, std::span(head).first(length)); !read) return read.error();
  std::optional<std::byte> last;
  if (file.size() > 0) {
    std::array<std::byte, 1> tail{};
    if (auto read = file.ReadAt(file.size() - 1, tail); !read) return read.error();
    last = tail[0];
  }
  ClassifiedFile classified = ClassifyFileHead(std::span(head).first(length), file.size(), last, &file);
  if (classified.kind == InputKind::kPickle && classified.description == kHeaderlessPickleDescription) {
    constexpr std::uint64_t kSyntaxWalkBound = std::uint64_t{64} << 20;
    auto parses = pickle::ParsesAsPickles(file, kSyntaxWalkBound);
    if (!parses) return parses.error();
    if (!*parses) {  // not a pickle: the kinds after it in the table may still claim it (msgpack, ONNX)
      classified.kind = InputKind::kUnknown;
      classified.description.clear();
      const FileHead file_head{std::span(head).first(length), file.size(), last, &file};
      const auto formats = InputFormats();
      for (auto at = formats.begin() + static_cast<std::ptrdiff_t>(InputKind::kPickle) + 1; at != formats.end(); ++at) {
        if ((*at)->sniff == nullptr) continue;
        if (auto description = (*at)->sniff(file_head)) {
          classified.kind = (*at)->kind;
          classified.description = std::move(*description);
          classified.refused_format = nullptr;
          break;
        }
      }
    }
  }
  if (classified.kind == InputKind::kUnknown && HasZipEndRecord(file)) {
    // A zip behind a prefix (junk, a spanning marker): torch's reader finds it from the end.
    classified.kind = InputKind::kTorchZip;
    classified.description = "a zip archive behind other bytes";
    classified.refused_format = nullptr;
  }
  return classified;
}

bool LooksLikeSafetensors(std::span<const std::byte> head, std::uint64_t size) {
  if (head.size() < 9 || size < 10) return false;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(std::to_integer<unsigned>(head[i])) << (8 * i);
  if (n < 2 || n > kMaxSafetensorsHeaderLength || n > size - 8) return false;
  for (std::size_t i = 8; i < head.size() && i < 8 + n; ++i) {
    const auto c = std::to_integer<char>(head[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;  // only whitespace within the bytes looked at
}

ClassifiedFile ClassifyFileHead(std::span<const std::byte> head, std::uint64_t size, std::optional<std::byte> last_byte,
                                const RandomAccessFile* open_file) {
  const FileHead file{head.first(std::min(head.size(), kClassifyLength)), size, last_byte, open_file};
  ClassifiedFile out;
  // The label a weight-file diagnostic would give it (GGUF, the pickle family, an empty file,
  // a Git LFS pointer, an HTML page): an unknown input is called by it.
  if (auto refused = RecogniseRefusedFormat(file.bytes, size)) {
    out.refused_format = refused->format;
    out.description = refused->description;
  }
  for (const InputFormat* format : InputFormats()) {
    if (format->sniff == nullptr) continue;
    if (auto description = format->sniff(file)) {
      out.kind = format->kind;
      out.description = std::move(*description);
      break;
    }
  }
  // A safetensors header length's first bytes can spell a weak magic (1f 8b is gzip, 78 9c
  // zlib: about 1 length in 8,000 does): a file whose header parses is safetensors first.
  if (out.kind < InputKind::kSafetensors && out.kind != InputKind::kUnknown && open_file != nullptr &&
      LooksLikeSafetensors(file.bytes, size) && SafetensorsHeaderParses(*open_file)) {
    out.kind = InputKind::kSafetensors;
    out.description = "a safetensors file";
  }
  return out;
}

bool SafetensorsHeaderParses(const RandomAccessFile& file) {
  std::array<std::byte, 8> prefix{};
  if (file.size() < 10 || !file.ReadAt(0, prefix)) return false;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(std::to_integer<unsigned>(prefix[i])) << (8 * i);
  if (n < 2 || n > kMaxSafetensorsHeaderLength || n > file.size() - 8) return false;
  std::string text(static_cast<std::size_t>(n), '\0');
  if (!file.ReadAt(8, std::as_writable_bytes(std::span(text)))) return false;
  json::Document doc(std::move(text));
  return !json::Parse(doc).has_value() && doc.root().type() == json::Type::kObject;
}

namespace {

// Full signatures only (formats.md section 14): gzip with its deflate method byte; bzip2's
// level digit is checked in SniffCompressed with its first block's magic.
// An LZ4 frame is what joblib writes with compress="lz4": refused like the rest (formats.md 14).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kCompressedMagics{{
    {std::string_view("\x1f\x8b\x08", 3), "a gzip stream"},
    {std::string_view("\xfd"
                      "7zXZ\0",
                      6),
     "an xz stream"},
    {std::string_view("\x28\xb5\x2f\xfd", 4), "a zstd stream"},
    {std::string_view("\x04\x22\x4d\x18", 4), "an LZ4 frame"},
}};

std::optional<std::string> SniffCompressed(const FileHead& head) {
  for (const auto& [magic, name] : kCompressedMagics) {
    if (StartsWith(head.bytes, magic)) return std::string(name);
  }
  if (codec::IsBzip2Signature(head.bytes)) return std::string("a bzip2 stream");
  return std::nullopt;
}

void CompressedInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kArchive;
  item.description = description + " (compressed)";
}

void RefuseCompressed(const std::string& name, const std::string& description, DiagnosticSink& sink) {
  Location at_start;  // the input file itself: an empty name
  at_start.byte_offset = 0;
  sink.Report(Diag::kInputCompressed, at_start,
              QuoteForMessage(name) + " is " + description +
                  ", a compressed archive: decompress it first (the audit reads uncompressed tars only).");
}

void RefuseUnknown(const std::string& name, const std::string& description, DiagnosticSink& sink) {
  Location at_start;
  at_start.byte_offset = 0;
  sink.Report(Diag::kInputUnrecognised, at_start,
              QuoteForMessage(name) + " is " +
                  (description.empty() ? std::string("no format the audit recognises") : description) +
                  ": neither a Lensemble artifact (directory or tar), safetensors, GGUF nor a pickle-based "
                  "checkpoint" +
                  (description == kGitLfsPointerDescription ? "; " + std::string(kGitLfsPointerRemedy) + "."
                                                            : std::string(".")));
}

}  // namespace

// gzip, bzip2, xz, zstd or LZ4: refused until decompressed.
const InputFormat formats::kCompressedFormat{
    .kind = InputKind::kCompressed,
    .sniff = &SniffCompressed,
    .opening = InputOpening::kRefused,
    .layout = &kLensembleLayout,
    .inventory = &CompressedInInventory,
    .refusal = &RefuseCompressed,
};

// Everything else: refused, called by its refused-format label when it has one.
const InputFormat formats::kUnknownFormat{
    .kind = InputKind::kUnknown,
    .opening = InputOpening::kRefused,
    .layout = &kLensembleLayout,
    .refusal = &RefuseUnknown,
};

}  // namespace ckpt
