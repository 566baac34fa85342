// The zip directory of a torch checkpoint, read as strictly as every other container: the
// end records (zip64 included), the central directory, each member's local header and data
// descriptor, compared field by field. Nothing is decompressed; members are located in
// place. Reports Diag::kZip* diagnostics with absolute byte offsets.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

struct ZipMember {
  std::string name;  ///< as the central directory stores it
  std::uint64_t central_offset = 0;
  std::uint64_t header_offset = 0;  ///< its local header
  std::uint64_t data_offset = 0;    ///< first byte of its data
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint64_t record_end = 0;  ///< past its data and data descriptor: where the next record may start
  std::uint32_t crc32 = 0;
  std::uint16_t method = 0;
  std::uint16_t flags = 0;
  bool located = false;  ///< local header read and data inside the archive: bytes can be read
};

struct ZipDirectory {
  std::vector<ZipMember> members;   ///< central directory order
  std::uint64_t archive_start = 0;  ///< bytes before the archive (a prefix): offsets are shifted by it
  bool found = false;               ///< an end record and a central directory were read
};

/// Bound on central-directory entries (checked against the directory's size first).
inline constexpr std::uint64_t kMaxZipMembers = 1U << 20;

/// Which compression methods a zip kind's writer uses (others are zip-member-compressed).
enum class ZipMethods : std::uint8_t {
  kStoredOnly,       ///< torch.save stores every member
  kStoredOrDeflate,  ///< numpy.savez_compressed, Keras, torch.jit.save deflate some
};

/// Reads the directory of the zip in `file`. Diagnostics name `display` (the input's file).
IoResult<ZipDirectory> ReadZipDirectory(const RandomAccessFile& file, const std::string& display, DiagnosticSink& sink,
                                        ZipMethods methods = ZipMethods::kStoredOnly);

/// The directory of the zip `file` as recognition sees it (formats.md section 1), read once
/// per file and kept for the next sniff of the same file on this thread: nullptr when the
/// file has no readable directory, or when a member's local and central names disagree (a
/// name the two headers spell differently never decides the kind).
std::shared_ptr<const ZipDirectory> SniffZipDirectory(const RandomAccessFile& file);

/// The first `limit` bytes of `member` (stored, or deflate inflated in a bounded buffer):
/// what a member is (an ELF, a "pt2" marker) without reading it whole. Empty when the member
/// cannot be located or inflated (its reader reports that).
IoResult<std::string> ReadZipMemberPrefix(const RandomAccessFile& file, const ZipMember& member, std::size_t limit);

/// Whether the last 64 KiB of the file hold an end-of-central-directory record whose
/// comment reaches the end: a zip whatever precedes it.
bool HasZipEndRecord(const RandomAccessFile& file);

/// The offset of the end record that miniz and zipfile would use (the last signature in the
/// final 65,557 bytes with 22 bytes after it) when it lists members of a central directory
/// that lies in the file: a zip any of them would open, whatever the file's first bytes.
IoResult<std::optional<std::uint64_t>> FindReadableZipDirectory(const RandomAccessFile& file);

/// The first member name of a zip (its local file header at offset 0), when it fits in `head`.
std::string_view FirstZipMember(std::span<const std::byte> head);

}  // namespace ckpt
