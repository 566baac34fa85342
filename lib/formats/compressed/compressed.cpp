// Compressed inputs (formats.md section 14): gzip, bzip2, xz, zstd or an LZ4 frame, by their
// full signatures. Refused until decompressed: the audit reads uncompressed tars only, and a
// decompressor is one more reader that could see other bytes.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "lib/codec/decompress.h"
#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"

namespace ckpt {
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

}  // namespace ckpt
