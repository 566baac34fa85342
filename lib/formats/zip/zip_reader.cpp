#include "lib/formats/zip/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <span>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/hashing/crc32.h"

namespace ckpt {
namespace {

constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kEnd64Signature = 0x06064b50;
constexpr std::uint32_t kLocator64Signature = 0x07064b50;
constexpr std::uint32_t kDescriptorSignature = 0x08074b50;
constexpr std::size_t kEndLength = 22;
constexpr std::size_t kMaxCommentLength = 0xFFFF;

std::uint64_t Le(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

std::string Hex32(std::uint64_t v) { return Crc32Hex(static_cast<std::uint32_t>(v)); }

struct EndRecord {
  std::uint64_t offset = 0;  // of the classic end record
  std::uint64_t entries = 0;
  std::uint64_t cd_size = 0;
  std::uint64_t cd_offset = 0;
  std::uint64_t cd_end = 0;  // where the directory must end: the zip64 end record or the classic one
};

// The final 65,557 bytes (or the whole file), where readers look for the end record.
IoResult<void> ReadTail(const RandomAccessFile& file, std::vector<std::byte>& tail, std::uint64_t& tail_start) {
  const std::uint64_t span = std::min<std::uint64_t>(file.size(), kEndLength + kMaxCommentLength);
  tail_start = file.size() - span;
  tail.resize(static_cast<std::size_t>(span));
  return file.ReadAt(tail_start, tail);
}

// The last end-record signature in `tail` starting before `end` (at most where a whole record
// fits), found a 'P' at a time with memrchr, which steps a word or a vector at once: the
// polyglot check searches the 64 KiB tail of every file.
std::optional<std::size_t> EndSignatureBefore(std::span<const std::byte> tail, std::size_t end) {
  if (tail.size() < kEndLength) return std::nullopt;
  end = std::min(end, tail.size() - kEndLength + 1);
  while (end > 0) {
    const void* found = ::memrchr(tail.data(), 'P', end);
    if (found == nullptr) return std::nullopt;
    const auto i = static_cast<std::size_t>(static_cast<const std::byte*>(found) - tail.data());
    if (Le(&tail[i], 4) == kEndSignature) return i;
    end = i;
  }
  return std::nullopt;
}

IoResult<std::optional<std::uint64_t>> FindEndRecord(const RandomAccessFile& file, std::vector<std::byte>& tail,
                                                     std::uint64_t& tail_start) {
  if (file.size() < kEndLength) return std::optional<std::uint64_t>();
  if (auto read = ReadTail(file, tail, tail_start); !read) return read.error();
  for (auto i = EndSignatureBefore(tail, tail.size()); i; i = EndSignatureBefore(tail, *i)) {
    const std::uint64_t comment = Le(&tail[*i + 20], 2);
    if (*i + kEndLength + comment == tail.size()) return std::optional<std::uint64_t>(tail_start + *i);
  }
  return std::optional<std::uint64_t>();
}

// The end record miniz and zipfile use: the last end-record signature in the tail with 22
// bytes after it, whatever its comment length says.
std::optional<std::size_t> LastEndSignature(std::span<const std::byte> tail) {
  return EndSignatureBefore(tail, tail.size());
}

// An I/O failure as an IoResult<bool> (whose bool constructor would otherwise be ambiguous).
IoResult<bool> Failed(const boost::system::error_code& error) {
  return IoResult<bool>(boost::system::in_place_error, error);
}

// Whether 4 bytes at `at` are `signature`.
IoResult<bool> SignatureAt(const RandomAccessFile& file, std::uint64_t at, std::uint32_t signature) {
  std::array<std::byte, 4> bytes{};
  if (at > file.size() || file.size() - at < bytes.size()) return false;
  if (auto read = file.ReadAt(at, bytes); !read) return Failed(read.error());
  return Le(bytes.data(), 4) == signature;
}

// Whether the end record at `at` (22 bytes in `record`) describes a directory a reader would
// open: an empty archive, or a central directory inside the file (where recorded, or right
// before the record) that starts with its signature.
IoResult<bool> EndRecordParses(const RandomAccessFile& file, std::uint64_t at, const std::byte* record) {
  const std::uint64_t entries = Le(record + 10, 2);
  const std::uint64_t cd_size = Le(record + 12, 4);
  const std::uint64_t cd_offset = Le(record + 16, 4);
  if (entries == 0 && cd_size == 0) return true;
  if (cd_size <= at) {
    auto before = SignatureAt(file, at - cd_size, kCentralSignature);
    if (!before) return Failed(before.error());
    if (*before) return true;
  }
  return SignatureAt(file, cd_offset, kCentralSignature);
}

// Whether a zip64 locator at `at` (20 bytes in `record`) points at a zip64 end record.
IoResult<bool> LocatorParses(const RandomAccessFile& file, const std::byte* record) {
  return SignatureAt(file, Le(record + 8, 8), kEnd64Signature);
}

}  // namespace

bool HasZipEndRecord(const RandomAccessFile& file) {
  std::vector<std::byte> tail;
  std::uint64_t tail_start = 0;
  auto end = FindEndRecord(file, tail, tail_start);
  return end && end->has_value();
}

IoResult<std::optional<std::uint64_t>> FindReadableZipDirectory(const RandomAccessFile& file) {
  if (file.size() < kEndLength) return std::optional<std::uint64_t>();
  std::vector<std::byte> tail;
  std::uint64_t tail_start = 0;
  if (auto read = ReadTail(file, tail, tail_start); !read) return read.error();
  const auto last = LastEndSignature(tail);
  if (!last) return std::optional<std::uint64_t>();
  const std::uint64_t at = tail_start + *last;
  auto parses = EndRecordParses(file, at, &tail[*last]);
  if (!parses) return parses.error();
  // An empty archive's end record is 22 bytes any file may hold; a directory must list something.
  if (!*parses || Le(&tail[*last + 10], 2) == 0) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(at);
}

namespace {

// The end record that reaches the end of the file, refused when another record in the tail
// (a second end record, a stray zip64 locator) would give another reader another directory,
// or when it describes a spanned archive. nullopt: reported.
IoResult<std::optional<EndRecord>> ReadEndRecord(const RandomAccessFile& file, const FileReporter& report) {
  const std::uint64_t size = file.size();
  std::vector<std::byte> tail;
  std::uint64_t tail_start = 0;
  auto end_at = FindEndRecord(file, tail, tail_start);
  if (!end_at) return end_at.error();
  if (!*end_at) {
    report(Diag::kZipStructure, size,
           "The zip has no end-of-central-directory record ending the file: its members cannot be listed as torch "
           "lists them (truncated, or bytes appended after the archive).");
    return std::optional<EndRecord>();
  }
  // miniz and zipfile take the last signature, whatever its comment length: the record that
  // reaches the end exactly must be that one, and no other record in the tail may parse.
  if (const auto last = LastEndSignature(tail); last && tail_start + *last != **end_at) {
    report(Diag::kZipAmbiguous, tail_start + *last,
           "The zip has a second end-of-central-directory record at byte " + std::to_string(tail_start + *last) +
               ", after the one at byte " + std::to_string(**end_at) +
               " whose comment reaches the end: miniz (torch.load), zipfile and unzip read the last one.");
    return std::optional<EndRecord>();
  }
  for (std::size_t i = 0; i + kEndLength <= tail.size(); ++i) {
    const std::uint64_t at = tail_start + i;
    const std::uint32_t signature = static_cast<std::uint32_t>(Le(&tail[i], 4));
    if (at == **end_at || (signature != kEndSignature && signature != kLocator64Signature)) continue;
    if (signature == kLocator64Signature && at + 20 == **end_at) continue;  // the record's own locator
    auto parses = signature == kEndSignature ? EndRecordParses(file, at, &tail[i]) : LocatorParses(file, &tail[i]);
    if (!parses) return parses.error();
    if (!*parses) continue;
    report(Diag::kZipAmbiguous, at,
           std::string("The zip has a second ") +
               (signature == kEndSignature ? "end-of-central-directory record" : "zip64 locator") + " at byte " +
               std::to_string(at) + " that points at a directory, besides the end record at byte " +
               std::to_string(**end_at) + ": readers that search differently list different members.");
    return std::optional<EndRecord>();
  }
  const std::byte* e = &tail[static_cast<std::size_t>(**end_at - tail_start)];
  EndRecord end;
  end.offset = **end_at;
  end.entries = Le(e + 10, 2);
  end.cd_size = Le(e + 12, 4);
  end.cd_offset = Le(e + 16, 4);
  end.cd_end = end.offset;
  if (Le(e + 4, 2) != 0 || Le(e + 6, 2) != 0 || Le(e + 8, 2) != Le(e + 10, 2)) {
    report(Diag::kZipStructure, end.offset, "The zip's end record describes a multi-disk (spanned) archive.");
    return std::optional<EndRecord>();
  }
  return std::optional<EndRecord>(end);
}

// Applies the zip64 end record a locator before the classic one points at (miniz follows it
// wherever it lies, so it is read from the file). False: reported.
IoResult<bool> ApplyZip64(const RandomAccessFile& file, const FileReporter& report, EndRecord& end) {
  // A zip64 locator just before the end record points at the zip64 end record; miniz follows
  // it wherever it lies, so it is read from the file, not from the tail buffer.
  const std::uint64_t size = file.size();
  std::array<std::byte, 20> locator{};
  if (end.offset >= 20) {
    if (auto read = file.ReadAt(end.offset - 20, locator); !read)
      return IoResult<bool>(boost::system::in_place_error, read.error());
  }
  if (end.offset >= 20 && Le(locator.data(), 4) == kLocator64Signature) {
    const std::uint64_t record = Le(locator.data() + 8, 8);
    std::array<std::byte, 56> z{};
    if (record > size || size - record < z.size() || record + z.size() > end.offset - 20) {
      report(Diag::kZipStructure, end.offset - 20,
             "The zip64 locator points at byte " + std::to_string(record) + ", where no zip64 end record fits.");
      return false;
    }
    if (auto read = file.ReadAt(record, z); !read) return IoResult<bool>(boost::system::in_place_error, read.error());
    if (Le(z.data(), 4) != kEnd64Signature) {
      report(
          Diag::kZipStructure, record,
          "The zip64 locator points at byte " + std::to_string(record) + ", which does not hold a zip64 end record.");
      return false;
    }
    const std::uint64_t entries64 = Le(&z[32], 8);
    const std::uint64_t cd_size64 = Le(&z[40], 8);
    const std::uint64_t cd_offset64 = Le(&z[48], 8);
    auto agrees = [](std::uint64_t classic, std::uint64_t wide, std::uint64_t all_ones) {
      return classic == all_ones || classic == wide;
    };
    if (!agrees(end.entries, entries64, 0xFFFF) || !agrees(end.cd_size, cd_size64, 0xFFFFFFFF) ||
        !agrees(end.cd_offset, cd_offset64, 0xFFFFFFFF)) {
      report(Diag::kZipHeaderMismatch, end.offset,
             "The zip's end record and its zip64 end record disagree on the central directory (entries " +
                 std::to_string(end.entries) + " vs " + std::to_string(entries64) + ", offset " +
                 std::to_string(end.cd_offset) + " vs " + std::to_string(cd_offset64) + ").");
    }
    end.entries = entries64;
    end.cd_size = cd_size64;
    end.cd_offset = cd_offset64;
    end.cd_end = record;
  }
  return true;
}

// The checks of one central directory entry against torch's writer and the other entries.
void CheckCentralEntry(const FileReporter& report, const ZipMember& m, std::uint64_t abs, ZipMethods methods,
                       std::map<std::string, std::uint64_t>& first_by_name,
                       std::map<std::string, std::pair<std::string, std::uint64_t>>& first_by_folded_name) {
  const std::string shown = QuoteForMessage(m.name);
  if ((m.flags & 0x0001U) != 0 || (m.flags & 0x0040U) != 0 || (m.flags & 0x0020U) != 0) {
    report(
        Diag::kZipStructure, abs, "Member " + shown + " has flag bits 0x" + [&] {
          char hex[8];
          std::snprintf(hex, sizeof hex, "%04x", m.flags);
          return std::string(hex);
        }() + " (encrypted, strongly encrypted or patched data): torch ignores them, scanners may stop at them.");
  }
  if (methods == ZipMethods::kStoredOnly && m.method != 0) {
    report(Diag::kZipMemberCompressed, abs,
           "Member " + shown + " is stored with compression method " + std::to_string(m.method) +
               "; torch.save stores every member uncompressed.");
  } else if (m.method != 0 && m.method != 8) {
    report(Diag::kZipMemberCompressed, abs,
           "Member " + shown + " is stored with compression method " + std::to_string(m.method) +
               "; only stored (0) and deflate (8) members are read, as this archive's writer uses.");
  }
  if (m.method == 0 && m.compressed_size != m.size) {
    report(Diag::kZipStructure, abs,
           "Member " + shown + " is stored, yet its sizes differ (" + std::to_string(m.compressed_size) + " vs " +
               std::to_string(m.size) + ").");
  }
  if (auto [it, inserted] = first_by_name.emplace(m.name, abs); !inserted) {
    report(Diag::kZipStructure, abs,
           "Member " + shown + " appears twice in the central directory (first at byte " + std::to_string(it->second) +
               "): readers keep different copies.");
  } else if (auto [folded, new_fold] = first_by_folded_name.emplace(AsciiLower(m.name), std::pair{m.name, abs});
             !new_fold) {
    report(Diag::kZipAmbiguous, abs,
           "Member " + shown + " and member " + QuoteForMessage(folded->second.first) + " (at byte " +
               std::to_string(folded->second.second) +
               ") differ only in case: miniz (torch.load) finds records without case, zipfile and unzip with it.");
  }
}

// A central entry's zip64 extra field: the fields whose classic value is all ones, in this
// order, widened. False when the extra field is malformed.
bool ReadZip64Extra(std::span<const std::byte> extra, std::uint64_t& size, std::uint64_t& compressed_size,
                    std::uint64_t& local) {
  bool ok = true;
  for (std::size_t x = 0; x + 4 <= extra.size();) {
    const std::byte* h = extra.data() + x;
    const std::size_t id = Le(h, 2);
    const std::size_t len = Le(h + 2, 2);
    if (x + 4 + len > extra.size()) return false;
    if (id == 0x0001) {
      std::size_t k = 0;
      auto wide = [&](std::uint64_t& field, std::uint64_t all_ones) {
        if (field != all_ones) return;
        if (k + 8 > len) {
          ok = false;
          return;
        }
        field = Le(h + 4 + k, 8);
        k += 8;
      };
      wide(size, 0xFFFFFFFF);
      wide(compressed_size, 0xFFFFFFFF);
      wide(local, 0xFFFFFFFF);
    }
    x += 4 + len;
  }
  return ok;
}

// The sizes and lengths of the central directory entry at `cd[at]` (46 bytes at least, its
// signature checked), zip64 extra applied: what the directory walk and its read plan both take.
struct CentralEntry {
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint64_t local = 0;  ///< local header offset, before the archive's start is added
  std::size_t name_len = 0;
  std::size_t extra_len = 0;
  std::size_t comment_len = 0;
  bool fits = false;      ///< name, extra field and comment end inside the directory
  bool extra_ok = false;  ///< the extra field parses (only looked at when it fits)
};

CentralEntry ReadCentralEntry(std::span<const std::byte> cd, std::size_t at) {
  const std::byte* c = &cd[at];
  CentralEntry e;
  e.compressed_size = Le(c + 20, 4);
  e.size = Le(c + 24, 4);
  e.name_len = Le(c + 28, 2);
  e.extra_len = Le(c + 30, 2);
  e.comment_len = Le(c + 32, 2);
  e.local = Le(c + 42, 4);
  e.fits = cd.size() - at - 46 >= e.name_len + e.extra_len + e.comment_len;
  if (e.fits)
    e.extra_ok = ReadZip64Extra(std::span(c + 46 + e.name_len, e.extra_len), e.size, e.compressed_size, e.local);
  return e;
}

// The local headers the directory walk reads (with the data of small members), announced before
// it reads them: a remote file fetches those lying close together in one request each (a
// 200-member torch zip cost three requests a member). Offsets are taken as written; the walk
// judges them. Only a hint.
void PlanLocalReads(const RandomAccessFile& file, std::span<const std::byte> cd, std::uint64_t entries,
                    std::uint64_t archive_start) {
  if (!file.ReadsAreRequests()) return;
  constexpr std::uint64_t kLocalExtraSlack = 256;  // a local extra field (torch pads data to 64 bytes)
  constexpr std::uint64_t kSmallMember = std::uint64_t{64} << 10;
  std::vector<PlannedRead> reads;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < entries && cd.size() - at >= 46 && Le(&cd[at], 4) == kCentralSignature; ++i) {
    const CentralEntry e = ReadCentralEntry(cd, at);
    if (!e.fits) break;
    const auto header = CheckedAdd(e.local, archive_start);
    const auto data_end = header ? CheckedAdd(*header + 30 + e.name_len, e.compressed_size) : std::nullopt;
    if (header && data_end) {
      if (e.compressed_size <= kSmallMember) {
        reads.push_back({*header, 30 + e.name_len + kLocalExtraSlack + e.compressed_size + 24});
      } else {
        reads.push_back({*header, 30 + e.name_len + kLocalExtraSlack});
        // Where a data descriptor would follow the data (torch writes them), wherever the local
        // extra field ends.
        reads.push_back({*data_end, kLocalExtraSlack + 24});
      }
    }
    at += 46 + e.name_len + e.extra_len + e.comment_len;
  }
  file.PlanReads(reads);
}

// Member `m`'s local header at `local` (+ the archive's start) against its central entry; the
// member is located (its data region known) only when the header reads.
IoResult<void> CheckLocalHeader(const RandomAccessFile& file, const FileReporter& report, ZipMember& m,
                                std::uint64_t local, std::uint64_t archive_start, std::uint64_t cd_start) {
  const std::string shown = QuoteForMessage(m.name);
  const std::uint64_t size = file.size();
  auto header = CheckedAdd(local, archive_start);
  std::array<std::byte, 30> lh{};
  if (!header || *header > size || size - *header < lh.size()) {
    report(Diag::kZipStructure, m.central_offset,
           "The local header offset of member " + shown + " (" + std::to_string(local) + ") is past the archive.");
    return {};
  }
  m.header_offset = *header;
  if (auto read = file.ReadAt(*header, lh); !read) return read.error();
  if (Le(lh.data(), 4) != kLocalSignature) {
    report(Diag::kZipStructure, *header,
           "The local header of member " + shown + " at byte " + std::to_string(*header) +
               " has no local header signature.");
    return {};
  }
  const std::size_t local_name_len = Le(&lh[26], 2);
  const std::size_t local_extra_len = Le(&lh[28], 2);
  std::string local_name(local_name_len, '\0');
  const std::uint64_t name_at = *header + 30;
  if (size - name_at < local_name_len + local_extra_len) {
    report(Diag::kZipStructure, *header, "The local header of member " + shown + " runs past the end of the file.");
    return {};
  }
  if (auto read = file.ReadAt(name_at, std::as_writable_bytes(std::span(local_name))); !read) return read.error();
  m.data_offset = name_at + local_name_len + local_extra_len;
  const auto local_flags = static_cast<std::uint16_t>(Le(&lh[6], 2));
  const auto local_method = static_cast<std::uint16_t>(Le(&lh[8], 2));
  std::uint64_t local_crc = Le(&lh[14], 4);
  std::uint64_t local_csize = Le(&lh[18], 4);
  std::uint64_t local_size = Le(&lh[22], 4);
  std::vector<std::string> differences;
  if (local_name != m.name) differences.push_back("name " + QuoteForMessage(local_name));
  if (local_flags != m.flags)
    differences.push_back("flags " + std::to_string(local_flags) + " vs " + std::to_string(m.flags));
  if (local_method != m.method) {
    differences.push_back("method " + std::to_string(local_method) + " vs " + std::to_string(m.method));
  }
  const auto data_end = CheckedAdd(m.data_offset, m.compressed_size);
  if (data_end) m.record_end = *data_end;
  if (!data_end || *data_end > cd_start) {
    report(Diag::kZipStructure, *header,
           "The " + std::to_string(m.compressed_size) + " data bytes of member " + shown + " at byte " +
               std::to_string(m.data_offset) + " run past the start of the central directory.");
    return {};
  }
  if ((local_flags & 0x0008U) != 0) {
    // A data descriptor after the data holds the CRC-32 and sizes (the local fields may be 0).
    std::array<std::byte, 24> dd{};
    const std::uint64_t room = cd_start - *data_end;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(room, dd.size()));
    if (auto read = file.ReadAt(*data_end, std::span(dd).first(n)); !read) return read.error();
    std::size_t k = n >= 4 && Le(dd.data(), 4) == kDescriptorSignature ? 4 : 0;
    const bool wide = m.size >= 0xFFFFFFFFU || m.compressed_size >= 0xFFFFFFFFU;
    const std::size_t width = wide ? 8 : 4;
    if (n < k + 4 + 2 * width) {
      differences.push_back("a data descriptor that does not fit before the next record");
    } else {
      local_crc = Le(&dd[k], 4);
      local_csize = Le(&dd[k + 4], width);
      local_size = Le(&dd[k + 4 + width], width);
      m.record_end = *data_end + k + 4 + 2 * width;
    }
  }
  if (local_crc != m.crc32) differences.push_back("CRC-32 " + Hex32(local_crc) + " vs " + Hex32(m.crc32));
  const bool local_wide = local_csize == 0xFFFFFFFFU || local_size == 0xFFFFFFFFU;
  if (!local_wide && (local_csize != m.compressed_size || local_size != m.size)) {
    differences.push_back("sizes " + std::to_string(local_csize) + "/" + std::to_string(local_size) + " vs " +
                          std::to_string(m.compressed_size) + "/" + std::to_string(m.size));
  }
  if (!differences.empty()) {
    std::string list;
    for (const std::string& d : differences) {
      if (!list.empty()) list += "; ";
      list += d;
    }
    std::string message = "The local header of member " + shown + " at byte " + std::to_string(*header);
    message += " differs from its central directory entry: ";
    message += list;
    message += '.';
    report(Diag::kZipHeaderMismatch, *header, std::move(message));
  }
  m.located = true;
  return {};
}

}  // namespace

IoResult<ZipDirectory> ReadZipDirectory(const RandomAccessFile& file, const std::string& display, DiagnosticSink& sink,
                                        ZipMethods methods) {
  const FileReporter report(display, sink);
  ZipDirectory dir;
  auto end_or = ReadEndRecord(file, report);
  if (!end_or) return end_or.error();
  if (!*end_or) return dir;
  EndRecord end = **end_or;
  auto zip64 = ApplyZip64(file, report, end);
  if (!zip64) return zip64.error();
  if (!*zip64) return dir;
  // Where the directory actually sits: it ends where the end records begin. A difference
  // from the recorded offset is a prefix (bytes before the archive), which some readers
  // correct for and others do not.
  if (end.cd_size > end.cd_end) {
    report(Diag::kZipStructure, end.offset,
           "The zip's central directory is " + std::to_string(end.cd_size) + " bytes, more than the " +
               std::to_string(end.cd_end) + " bytes before its end record.");
    return dir;
  }
  const std::uint64_t cd_start = end.cd_end - end.cd_size;
  if (cd_start < end.cd_offset) {
    report(Diag::kZipStructure, end.offset,
           "The zip's end record puts the central directory at byte " + std::to_string(end.cd_offset) +
               ", past where it ends (" + std::to_string(end.cd_end) + ").");
    return dir;
  }
  dir.archive_start = cd_start - end.cd_offset;
  if (dir.archive_start != 0) {
    report(Diag::kZipStructure, 0,
           std::to_string(dir.archive_start) +
               " bytes precede the zip archive (offsets are shifted by them): a reader that starts at byte 0 and one "
               "that trusts the end record see different containers.");
  }
  if (end.entries > kMaxZipMembers || end.entries > end.cd_size / 46) {
    report(Diag::kZipStructure, end.offset,
           "The zip's end record claims " + std::to_string(end.entries) + " members, more than its " +
               std::to_string(end.cd_size) + "-byte central directory can hold (or past the bound of " +
               std::to_string(kMaxZipMembers) + ").");
    return dir;
  }
  std::vector<std::byte> cd(static_cast<std::size_t>(end.cd_size));
  if (auto read = file.ReadAt(cd_start, cd); !read) return read.error();
  PlanLocalReads(file, cd, end.entries, dir.archive_start);
  dir.found = true;
  std::size_t at = 0;
  std::map<std::string, std::uint64_t> first_by_name;
  std::map<std::string, std::pair<std::string, std::uint64_t>> first_by_folded_name;  // ASCII case folded
  for (std::uint64_t i = 0; i < end.entries; ++i) {
    const std::uint64_t abs = cd_start + at;
    if (cd.size() - at < 46 || Le(&cd[at], 4) != kCentralSignature) {
      report(Diag::kZipStructure, abs,
             "Central directory entry " + std::to_string(i) + " at byte " + std::to_string(abs) +
                 " is not a central directory header (" + std::to_string(end.entries) + " were claimed).");
      break;
    }
    const std::byte* c = &cd[at];
    ZipMember m;
    m.central_offset = abs;
    m.flags = static_cast<std::uint16_t>(Le(c + 8, 2));
    m.method = static_cast<std::uint16_t>(Le(c + 10, 2));
    m.crc32 = static_cast<std::uint32_t>(Le(c + 16, 4));
    const CentralEntry e = ReadCentralEntry(cd, at);
    if (!e.fits) {
      report(Diag::kZipStructure, abs, "Central directory entry " + std::to_string(i) + " runs past the directory.");
      break;
    }
    m.compressed_size = e.compressed_size;
    m.size = e.size;
    m.name.assign(reinterpret_cast<const char*>(c + 46), e.name_len);
    at += 46 + e.name_len + e.extra_len + e.comment_len;
    const std::string shown = QuoteForMessage(m.name);
    if (!e.extra_ok) {
      report(Diag::kZipStructure, abs, "Member " + shown + " has a malformed extra field in the central directory.");
      continue;
    }
    CheckCentralEntry(report, m, abs, methods, first_by_name, first_by_folded_name);
    if (auto checked = CheckLocalHeader(file, report, m, e.local, dir.archive_start, cd_start); !checked) {
      return checked.error();
    }
    dir.members.push_back(std::move(m));
  }
  if (dir.members.size() == end.entries && at != cd.size()) {
    const bool another_entry = cd.size() - at >= 4 && Le(&cd[at], 4) == kCentralSignature;
    report(Diag::kZipAmbiguous, cd_start + at,
           another_entry ? "The zip's central directory holds entries beyond the " + std::to_string(end.entries) +
                               " its end record counts, from byte " + std::to_string(cd_start + at) +
                               ": a reader that walks the directory lists members the others do not."
                         : std::to_string(cd.size() - at) + " bytes at byte " + std::to_string(cd_start + at) +
                               " are left over in the zip's central directory after its " +
                               std::to_string(end.entries) + " entries.");
  }
  // Members must not share bytes: two names over one region read as two different files.
  std::vector<const ZipMember*> by_offset;
  for (const ZipMember& m : dir.members) {
    if (m.located) by_offset.push_back(&m);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const ZipMember* a, const ZipMember* b) { return a->header_offset < b->header_offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->header_offset < by_offset[i - 1]->data_offset + by_offset[i - 1]->compressed_size) {
      report(Diag::kZipStructure, by_offset[i]->header_offset,
             "Member " + QuoteForMessage(by_offset[i]->name) + " overlaps member " +
                 QuoteForMessage(by_offset[i - 1]->name) + ".");
    }
  }
  // Every byte from the archive's start to its directory belongs to a member's record: bytes
  // no entry claims can be a record that a reader walking local headers finds.
  const bool all_located =
      std::all_of(dir.members.begin(), dir.members.end(), [](const ZipMember& m) { return m.located; });
  if (all_located && dir.found) {
    std::uint64_t claimed_to = dir.archive_start;
    for (const ZipMember* m : by_offset) {
      if (m->header_offset > claimed_to) {
        report(Diag::kZipAmbiguous, claimed_to,
               std::to_string(m->header_offset - claimed_to) + " bytes at byte " + std::to_string(claimed_to) +
                   ", before member " + QuoteForMessage(m->name) +
                   ", belong to no entry of the central directory: a reader that walks local headers sees "
                   "another archive.");
        claimed_to = m->record_end;
        break;
      }
      claimed_to = std::max(claimed_to, m->record_end);
    }
    if (claimed_to < cd_start && !by_offset.empty() && claimed_to == by_offset.back()->record_end) {
      report(Diag::kZipAmbiguous, claimed_to,
             std::to_string(cd_start - claimed_to) + " bytes at byte " + std::to_string(claimed_to) +
                 ", between the last member and the central directory, belong to no entry.");
    }
  }
  return dir;
}

std::shared_ptr<const ZipDirectory> SniffZipDirectory(const RandomAccessFile& file) {
  // One entry: recognition tries the zip kinds one after another on the same file, and a
  // remote file's central directory is a request each time it is read.
  struct Cached {
    const RandomAccessFile* file = nullptr;
    std::uint64_t size = 0;
    FileIdentity identity;
    std::shared_ptr<const ZipDirectory> dir;
  };
  thread_local Cached cached;
  if (cached.file == &file && cached.size == file.size() && cached.identity == file.identity()) return cached.dir;
  DiagnosticList seen;  // the reader reports them; here they only decide whether names agree
  auto dir = ReadZipDirectory(file, "", seen, ZipMethods::kStoredOrDeflate);
  std::shared_ptr<const ZipDirectory> kept;
  const bool names_agree = std::none_of(seen.items.begin(), seen.items.end(),
                                        [](const Diagnostic& d) { return d.kind == Diag::kZipHeaderMismatch; });
  if (dir && dir->found && names_agree) kept = std::make_shared<const ZipDirectory>(std::move(*dir));
  cached = {&file, file.size(), file.identity(), kept};
  return kept;
}

IoResult<std::string> ReadZipMemberPrefix(const RandomAccessFile& file, const ZipMember& member, std::size_t limit) {
  if (!member.located) return std::string();
  if (member.method == 0) {
    std::string out(static_cast<std::size_t>(std::min<std::uint64_t>(limit, member.size)), '\0');
    if (auto read = file.ReadAt(member.data_offset, std::as_writable_bytes(std::span(out))); !read) return read.error();
    return out;
  }
  if (member.method != 8) return std::string();
  // Raw deflate: a few KiB of input give the first bytes of any member.
  constexpr std::uint64_t kInputBound = std::uint64_t{64} * 1024;
  std::vector<std::byte> in(static_cast<std::size_t>(std::min(kInputBound, member.compressed_size)));
  if (auto read = file.ReadAt(member.data_offset, in); !read) return read.error();
  std::string out(limit, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return std::string();
  z.next_in = reinterpret_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&z, Z_SYNC_FLUSH);
  const std::size_t produced = out.size() - z.avail_out;
  inflateEnd(&z);
  if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) return std::string();
  out.resize(produced);
  return out;
}

std::string_view FirstZipMember(std::span<const std::byte> head) {
  if (head.size() < 30) return {};
  const std::size_t length = Le(head.data() + 26, 2);
  if (30 + length > head.size()) return {};
  return AsStringView(head.subspan(30, length));
}

}  // namespace ckpt
