// Recognition of a file input by content (inputs.md section 1), never by its name: the rows
// of the section's table are tried in order (tar, compressed, safetensors, GGUF, the pickle
// family). Directories are classified by their entries (engine/inputs).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "lib/core/input_kind.h"
#include "lib/formats/weight_formats.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

/// Bytes of the file start the classifier looks at (a tar magic sits at offset 257).
inline constexpr std::size_t kClassifyLength = 512;

struct ClassifiedFile {
  InputKind kind = InputKind::kUnknown;
  std::string description;  ///< "a gzip stream", "a Python pickle (protocol 4)"
  std::optional<Diag>
      refused_as;  ///< for the pickle family, GGUF and the unknown: its label's diagnostic where weights belong
};

/// Classifies a file from its first bytes (at most kClassifyLength), its size and, when the
/// caller will confirm a headerless pickle by ClassifyFile's syntax walk, its last byte (a
/// protocol 0/1 pickle starts with one of its opcodes; without a last byte no such guess is made).
ClassifiedFile ClassifyFileHead(std::span<const std::byte> head, std::uint64_t size,
                                std::optional<std::byte> last_byte = std::nullopt,
                                const RandomAccessFile* file = nullptr);

/// Classifies an opened file: ClassifyFileHead on its first and last bytes, then what needs
/// more than the head: a zip found by its end record behind other bytes, and a pickle
/// without a PROTO header confirmed by a syntax walk up to its first STOP (text that merely
/// starts with an opcode letter is not one). An I/O failure is the error.
IoResult<ClassifiedFile> ClassifyFile(const RandomAccessFile& file);

/// The safetensors row: the first 8 bytes give N with 2 <= N <= 100,000,000 and
/// N <= size - 8, and the header starts with '{' after JSON whitespace.
bool LooksLikeSafetensors(std::span<const std::byte> head, std::uint64_t size);

/// Whether `file`'s header (the N bytes after the length) parses as a JSON object: what makes
/// a safetensors file win over a compression magic its header length happens to spell.
bool SafetensorsHeaderParses(const RandomAccessFile& file);

}  // namespace ckpt
