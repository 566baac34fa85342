#include "lib/formats/input_classifier.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/safetensors/safetensors_reader.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/json/strict_parser.h"

namespace ckpt {
namespace {

// The first of `formats` whose sniff matches the head (its description in `description`), or nullptr.
const InputFormat* FirstSniffed(std::span<const InputFormat* const> formats, const FileHead& head,
                                std::string& description) {
  for (const InputFormat* format : formats) {
    if (format->sniff == nullptr) continue;
    if (auto found = format->sniff(head)) {
      description = std::move(*found);
      return format;
    }
  }
  return nullptr;
}

// The kind a complete safetensors file is (the entry whose container is safetensors).
InputKind SafetensorsKind() {
  static const InputKind kind = [] {
    for (const InputFormat* format : InputFormats()) {
      if (format->container == PolyglotContainer::kSafetensors) return format->kind;
    }
    throw std::logic_error("the format table has no safetensors entry");
  }();
  return kind;
}

}  // namespace

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
  const FileHead file_head{std::span(head).first(length), file.size(), last, &file};
  const auto formats = InputFormats();
  // A guess from the head alone is confirmed by its format; refuted, the kinds after it in the
  // list (which is in kind order: FormatOf checks) try.
  while (FormatOf(classified.kind).confirm != nullptr) {
    auto confirmed = FormatOf(classified.kind).confirm(classified.description, file);
    if (!confirmed) return confirmed.error();
    if (*confirmed) break;
    const auto after = formats.subspan(static_cast<std::size_t>(classified.kind) + 1);
    classified.kind = InputKind::kUnknown;
    classified.description.clear();
    const InputFormat* next = FirstSniffed(after, file_head, classified.description);
    if (next == nullptr) break;
    classified.kind = next->kind;
    classified.refused_as = std::nullopt;
  }
  if (classified.kind == InputKind::kUnknown && HasZipEndRecord(file)) {
    // A zip behind a prefix (junk, a spanning marker): torch's reader finds it from the end.
    for (const InputFormat* format : formats) {
      if (!format->claims_zip_from_end) continue;
      classified.kind = format->kind;
      classified.description = "a zip archive behind other bytes";
      classified.refused_as = std::nullopt;
      break;
    }
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
    out.refused_as = refused->refused;
    out.description = refused->description;
  }
  const InputFormat* sniffed = FirstSniffed(InputFormats(), file, out.description);
  if (sniffed != nullptr) out.kind = sniffed->kind;
  // A safetensors header length's first bytes can spell a weak magic (1f 8b is gzip, 78 9c
  // zlib: about 1 length in 8,000 does): a file whose header parses is safetensors first.
  if (sniffed != nullptr && sniffed->kind < SafetensorsKind() && open_file != nullptr &&
      LooksLikeSafetensors(file.bytes, size) && SafetensorsHeaderParses(*open_file)) {
    out.kind = SafetensorsKind();
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

void RefuseUnknown(const std::string& name, const std::string& description, DiagnosticSink& sink) {
  Location at_start;
  at_start.byte_offset = 0;
  // What to do: an LFS pointer's weights are fetched; any other file given alone is most
  // often a model's card or configuration picked by a glob, which its folder's audit reads.
  std::string what_to_do;
  if (description == kGitLfsPointerDescription) {
    what_to_do = ": " + std::string(kGitLfsPointerRemedy) + ".";
  } else if (description.empty()) {
    what_to_do =
        ": none of the kinds --expect-kind names (a model folder's card or configuration is audited with its folder: "
        "give the folder, such as '.' at a repository root).";
  } else {
    what_to_do = ": none of the kinds --expect-kind names.";
  }
  sink.Report(Diag::kInputUnrecognised, at_start,
              QuoteForMessage(name) + " is " +
                  (description.empty() ? std::string("no format the audit recognises") : description) + what_to_do);
}

}  // namespace

// Everything else: refused, called by its refused-format label when it has one.
const InputFormat formats::kUnknownFormat{
    .kind = InputKind::kUnknown,
    .opening = InputOpening::kRefused,
    .layout = &kLensembleLayout,
    .refusal = &RefuseUnknown,
};

}  // namespace ckpt
