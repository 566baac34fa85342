// Tar reader (inputs.md section 2): the member table of an uncompressed ustar, pax or GNU
// tar, read from its headers only (member data is never read here). Every refusal of the
// section is its own diagnostic; the members that pass are the artifact's files, named
// relative to the artifact root, and are read in place at their offsets (lib/formats/tar/tar_source.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

inline constexpr std::uint64_t kTarBlock = 512;

/// True when `head` (at least 263 bytes of a file) carries a tar magic at offset 257:
/// POSIX `ustar\0` + `00`, or GNU `ustar  \0`.
[[nodiscard]] bool HasTarMagic(std::span<const std::byte> head);
/// True when `head`'s first 512 bytes are a tar header GNU tar and tarfile would read: a tar
/// magic and a checksum that matches (the unsigned sum, or old Sun tar's signed one).
[[nodiscard]] bool IsTarHeader(std::span<const std::byte> head);

struct TarMember {
  std::string name;        ///< as the archive names it (pax path, GNU long name, or ustar prefix/name)
  std::string entry_name;  ///< relative to the artifact root (the common prefix removed); set when admitted
  std::uint64_t header_offset = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t size = 0;
  char type = '0';
  bool admitted = false;  ///< a regular file the artifact may hold (TarSource lists exactly these)
};

struct TarIndex {
  std::vector<TarMember> members;  ///< in archive order
  std::string top_folder;          ///< the common top folder removed from member names, if any
  bool complete = false;           ///< read to a valid end marker without a structural refusal
};

/// How members may be laid out: an artifact's files at its root (inputs.md section 2), or a
/// NeMo archive's, in sub-folders at most kMaxTarNesting deep (formats.md section 9).
enum class TarNesting : std::uint8_t { kFlat, kNested };
inline constexpr std::size_t kMaxTarNesting = 8;

/// Reads the member table of the tar in `file`. Diagnostics carry the tar itself as their
/// file (`Location::file` empty) and the byte offset of the header concerned; the member's
/// name is in the message. I/O failures are returned as errors.
[[nodiscard]] IoResult<TarIndex> ReadTar(const RandomAccessFile& file, DiagnosticSink& sink,
                                         TarNesting nesting = TarNesting::kFlat);

}  // namespace ckpt
