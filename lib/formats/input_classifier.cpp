#include "lib/formats/input_classifier.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/formats/pickle_analyser.h"
#include "lib/formats/safetensors_reader.h"
#include "lib/formats/tar_reader.h"
#include "lib/formats/torch_checkpoint.h"
#include "lib/formats/zip_reader.h"

namespace ckpt {
namespace {

// What the head alone calls a file that starts with an opcode and ends with STOP; ClassifyFile
// confirms it by a syntax walk.
constexpr std::string_view kHeaderlessPickle = "a Python pickle (no protocol header)";

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
  ClassifiedFile classified = ClassifyFileHead(std::span(head).first(length), file.size(), last);
  if (classified.kind == InputKind::kPickle && classified.description == kHeaderlessPickle) {
    constexpr std::uint64_t kSyntaxWalkBound = std::uint64_t{64} << 20;
    auto parses = pickle::ParsesAsPickles(file, kSyntaxWalkBound);
    if (!parses) return parses.error();
    if (!*parses) {
      classified.kind = InputKind::kUnknown;
      classified.description.clear();
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

ClassifiedFile ClassifyFileHead(std::span<const std::byte> head, std::uint64_t size,
                                std::optional<std::byte> last_byte) {
  head = head.first(std::min(head.size(), kClassifyLength));
  ClassifiedFile out;
  if (HasTarMagic(head)) {
    out.kind = InputKind::kLensembleTar;
    out.description = "a tar archive";
    return out;
  }
  struct Compressed {
    std::string_view magic;
    std::string_view name;
  };
  for (const Compressed& c :
       {Compressed{std::string_view("\x1f\x8b", 2), "a gzip stream"}, Compressed{"BZh", "a bzip2 stream"},
        Compressed{std::string_view("\xfd"
                                    "7zXZ\0",
                                    6),
                   "an xz stream"},
        Compressed{std::string_view("\x28\xb5\x2f\xfd", 4), "a zstd stream"}}) {
    if (StartsWith(head, c.magic)) {
      out.kind = InputKind::kCompressed;
      out.description = std::string(c.name);
      return out;
    }
  }
  if (LooksLikeSafetensors(head, size)) {
    out.kind = InputKind::kSafetensors;
    out.description = "a safetensors file";
    return out;
  }
  auto refused = RecogniseRefusedFormat(head, size);
  if (refused) {
    out.refused_format = refused->format;
    out.description = refused->description;
    if (refused->format->name == "gguf") out.kind = InputKind::kGguf;
  }
  const InputKind family = ClassifyPickleFamily(head, size);
  if (family != InputKind::kUnknown) {
    out.kind = family;
    if (family == InputKind::kTorchLegacy) out.description = "a legacy torch.save checkpoint (stacked pickles)";
    if (family == InputKind::kTorchZip) out.description = "a zip archive (torch.save format)";
  } else if (out.kind == InputKind::kUnknown && !head.empty() && pickle::IsOpcode(head[0]) && last_byte) {
    // An opcode first: perhaps a pickle without a PROTO opcode (protocols 0 and 1 write none,
    // and CPython runs any opcode in any stream) up to a STOP, whatever follows it;
    // ClassifyFile confirms it by a syntax walk.
    out.kind = InputKind::kPickle;
    out.description = std::string(kHeaderlessPickle);
  }
  return out;
}

}  // namespace ckpt
