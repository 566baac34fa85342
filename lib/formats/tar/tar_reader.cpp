#include "lib/formats/tar/tar_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"

namespace ckpt {
namespace {

// Header field offsets and widths (POSIX ustar; GNU shares everything up to `devminor`).
struct Field {
  std::size_t at;
  std::size_t width;
};
constexpr Field kName{0, 100};
constexpr Field kMode{100, 8};
constexpr Field kUid{108, 8};
constexpr Field kGid{116, 8};
constexpr Field kSize{124, 12};
constexpr Field kMtime{136, 12};
constexpr Field kChecksum{148, 8};
constexpr std::size_t kTypeflag = 156;
constexpr Field kDevMajor{329, 8};
constexpr Field kDevMinor{337, 8};
constexpr Field kPrefix{345, 155};

// Bounds on what an extension record may make the reader hold.
constexpr std::uint64_t kMaxPaxHeader = 1 << 20;
constexpr std::uint64_t kMaxLongName = 64 << 10;
constexpr std::size_t kMaxMembers = 1 << 20;

using Block = std::array<std::byte, kTarBlock>;

char At(const Block& b, std::size_t i) { return static_cast<char>(std::to_integer<unsigned char>(b[i])); }

std::string_view FieldText(const Block& b, Field f) {
  return {reinterpret_cast<const char*>(b.data()) + f.at, f.width};
}

// A NUL-terminated string field (the whole width when it has no NUL).
std::string CString(const Block& b, Field f) {
  std::string_view text = FieldText(b, f);
  return std::string(text.substr(0, text.find('\0')));
}

bool IsZeroBlock(const Block& b) {
  return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}

enum class NumericError { kNone, kSyntax, kNegative, kTooLarge };

// A numeric header field: optional leading spaces, octal digits, then only NUL or space
// (all-NUL or all-space is 0); or base-256 when the first byte is 0x80 (0xFF, negative,
// is refused).
std::uint64_t ParseNumeric(std::string_view field, NumericError& error) {
  error = NumericError::kNone;
  const auto first = static_cast<unsigned char>(field.front());
  if (first == 0x80) {
    std::uint64_t value = 0;
    for (std::size_t i = 1; i < field.size(); ++i) {
      if (value >> 56) {
        error = NumericError::kTooLarge;
        return 0;
      }
      value = (value << 8) | static_cast<unsigned char>(field[i]);
    }
    return value;
  }
  if (first == 0xFF) {
    error = NumericError::kNegative;
    return 0;
  }
  std::size_t i = 0;
  while (i < field.size() && field[i] == ' ') ++i;
  std::uint64_t value = 0;
  for (; i < field.size() && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (value >> 60) {
      error = NumericError::kTooLarge;
      return 0;
    }
    value = value * 8 + static_cast<std::uint64_t>(field[i] - '0');
  }
  for (; i < field.size(); ++i) {
    if (field[i] != '\0' && field[i] != ' ') {
      error = NumericError::kSyntax;
      return 0;
    }
  }
  return value;
}

// Header checksums: the unsigned sum with the checksum field read as spaces, and the
// signed sum old Sun tar wrote.
std::pair<std::uint64_t, std::int64_t> ChecksumsOf(const Block& b) {
  std::uint64_t unsigned_sum = 0;
  std::int64_t signed_sum = 0;
  for (std::size_t i = 0; i < kTarBlock; ++i) {
    const bool in_field = i >= kChecksum.at && i < kChecksum.at + kChecksum.width;
    const auto byte = in_field ? static_cast<unsigned char>(' ') : std::to_integer<unsigned char>(b[i]);
    unsigned_sum += byte;
    signed_sum += static_cast<signed char>(byte);
  }
  return {unsigned_sum, signed_sum};
}

enum class Magic { kNone, kPosix, kGnu };

Magic MagicOf(std::span<const std::byte> head) {
  if (head.size() < 265) return Magic::kNone;
  const std::string_view magic(reinterpret_cast<const char*>(head.data()) + 257, 8);
  if (magic == std::string_view("ustar\0"
                                "00",
                                8))
    return Magic::kPosix;
  if (magic == std::string_view("ustar  \0", 8)) return Magic::kGnu;
  return Magic::kNone;
}

// Pax extended header records: "LEN key=value\n", LEN counting the whole record.
struct PaxRecords {
  std::optional<std::string> path;
  std::optional<std::uint64_t> size;
  bool sparse = false;            // GNU.sparse.* keys: a sparse file in pax clothing
  std::vector<std::string> keys;  // every key, in order
};

// Parses `data`; on failure returns false with `why`.
bool ParsePax(std::string_view data, PaxRecords& out, std::string& why) {
  while (!data.empty()) {
    std::size_t digits = 0;
    std::uint64_t length = 0;
    while (digits < data.size() && data[digits] >= '0' && data[digits] <= '9') {
      if (length > (1ULL << 40)) break;
      length = length * 10 + static_cast<std::uint64_t>(data[digits] - '0');
      ++digits;
    }
    if (digits == 0 || digits >= data.size() || data[digits] != ' ' || length <= digits + 1 || length > data.size()) {
      // A writer may pad the record area with NULs after the last record.
      if (std::all_of(data.begin(), data.end(), [](char c) { return c == '\0'; })) return true;
      why = "a record length is malformed";
      return false;
    }
    const std::string_view record = data.substr(digits + 1, length - digits - 1);
    data.remove_prefix(length);
    if (record.empty() || record.back() != '\n') {
      why = "a record does not end with a newline";
      return false;
    }
    const std::string_view body = record.substr(0, record.size() - 1);
    const std::size_t eq = body.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      why = "a record has no key";
      return false;
    }
    const std::string_view key = body.substr(0, eq);
    const std::string_view value = body.substr(eq + 1);
    out.keys.emplace_back(key);
    if (key == "path") {
      if (value.find('\0') != std::string_view::npos) {
        why = "its path record holds a NUL byte";
        return false;
      }
      out.path = std::string(value);
    } else if (key == "size") {
      std::uint64_t size = 0;
      if (value.empty() || value.size() > 19 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        why = "its size record is not a decimal number";
        return false;
      }
      for (char c : value) size = size * 10 + static_cast<std::uint64_t>(c - '0');
      out.size = size;
    } else if (key.starts_with("GNU.sparse.")) {
      out.sparse = true;
    }
  }
  return true;
}

// Names with non-ASCII bytes replaced by '?', as Python's tarfile writes the ustar name
// beside a pax path.
std::string AsciiReplaced(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      out.push_back(name[i]);
      ++i;
      continue;
    }
    // One '?' per UTF-8 sequence (per byte when the bytes are not UTF-8).
    std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (i + length > name.size()) length = 1;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(name[i + k]) & 0xC0) != 0x80) length = 1;
    }
    out.push_back('?');
    i += length;
  }
  return out;
}

// What a writer stores in the ustar name beside a long name: empty, the long name, or its
// first 100 bytes, raw or with non-ASCII replaced by '?'.
bool UstarNameAgrees(std::string_view ustar, std::string_view long_name) {
  if (ustar.empty() || ustar == long_name) return true;
  if (ustar == long_name.substr(0, 100)) return true;
  const std::string replaced = AsciiReplaced(long_name);
  return ustar == replaced || ustar == std::string_view(replaced).substr(0, 100);
}

std::string TypeDescription(char type) {
  switch (type) {
    case '1':
      return "a hard link";
    case '2':
      return "a symbolic link";
    case '3':
      return "a character device";
    case '4':
      return "a block device";
    case '6':
      return "a FIFO";
    case '7':
      return "a contiguous file (type '7')";
    case 'S':
      return "a GNU sparse file";
    case 'V':
      return "a volume label (type 'V')";
    case 'M':
      return "a multi-volume continuation (type 'M')";
    case 'D':
      return "a GNU dump directory (type 'D')";
    case 'N':
      return "an old GNU long-name record (type 'N')";
    case 'K':
      return "a GNU long link name (type 'K')";
    default:
      break;
  }
  const auto c = static_cast<unsigned char>(type);
  if (c >= 0x20 && c < 0x7F) return std::string("a member of type '") + type + "'";
  return "a member of type byte " + std::to_string(c);
}

class TarReader {
 public:
  TarReader(const RandomAccessFile& file, DiagnosticSink& sink, TarNesting nesting)
      : file_(file), sink_(sink), nesting_(nesting) {}

  IoResult<TarIndex> Read() {
    const std::uint64_t size = file_.size();
    std::uint64_t at = 0;
    Pending pending;
    while (true) {
      if (at == size || size - at < kTarBlock) {
        Report(Diag::kTarEndMarkerMissing, at,
               "the archive ends at byte " + std::to_string(size) +
                   " without its end marker (two zero blocks): it was truncated");
        return Finish(false);
      }
      Block block{};
      if (auto read = file_.ReadAt(at, block); !read) return read.error();
      if (IsZeroBlock(block)) return ReadEnd(at);
      if (index_.members.size() >= kMaxMembers) {
        Report(Diag::kTarHeaderInvalid, at,
               "the archive has more than " + std::to_string(kMaxMembers) + " members; reading stops here");
        return Finish(false);
      }
      auto next = ReadMember(at, block, pending);
      if (!next) return next.error();
      if (!*next) return Finish(false);  // a structural refusal: nothing after it can be located
      at = **next;
    }
  }

 private:
  struct Pending {
    std::optional<PaxRecords> pax;
    std::optional<std::string> long_name;
    std::uint64_t first_offset = 0;  // header offset of the first extension of this member
  };

  void Report(Diag kind, std::uint64_t offset, std::string message) {
    message += '.';
    Location location;
    location.byte_offset = offset;
    sink_.Report(kind, std::move(location), std::move(message));
  }

  // The member's own data: reads an extension record's bytes (bounded by the caller).
  IoResult<std::string> ReadData(std::uint64_t offset, std::uint64_t length) {
    std::string data(static_cast<std::size_t>(length), '\0');
    if (auto read = file_.ReadAt(offset, std::as_writable_bytes(std::span(data))); !read) return read.error();
    return data;
  }

  // Reads and parses the pax header ("extended" or "global") whose data is at `data_offset`;
  // nullopt (reported) when it is over its bound or malformed.
  IoResult<std::optional<PaxRecords>> ReadPax(const char* what, std::uint64_t at, std::uint64_t data_offset,
                                              std::uint64_t data_size) {
    if (data_size > kMaxPaxHeader) {
      Report(Diag::kTarHeaderInvalid, at,
             std::string("a pax ") + what + " header of " + std::to_string(data_size) + " bytes exceeds the " +
                 std::to_string(kMaxPaxHeader) + "-byte bound");
      return std::optional<PaxRecords>();
    }
    auto data = ReadData(data_offset, data_size);
    if (!data) return data.error();
    PaxRecords records;
    std::string why;
    if (!ParsePax(*data, records, why)) {
      Report(Diag::kTarHeaderInvalid, at,
             std::string("the pax ") + what + " header at byte " + std::to_string(at) + " is malformed: " + why);
      return std::optional<PaxRecords>();
    }
    return std::optional<PaxRecords>(std::move(records));
  }

  // Reads the member whose header is at `at`. Returns the offset of the next header, or
  // nullopt when the archive cannot be read further.
  IoResult<std::optional<std::uint64_t>> ReadMember(std::uint64_t at, const Block& block, Pending& pending) {
    const Magic magic = MagicOf(block);
    const auto [unsigned_sum, signed_sum] = ChecksumsOf(block);
    NumericError error = NumericError::kNone;
    const std::uint64_t stored_sum = ParseNumeric(FieldText(block, kChecksum), error);
    if (error != NumericError::kNone ||
        (stored_sum != unsigned_sum && static_cast<std::int64_t>(stored_sum) != signed_sum)) {
      Report(Diag::kTarChecksumInvalid, at,
             "the header at byte " + std::to_string(at) + " fails its checksum (stored " +
                 QuoteForMessage(CString(block, kChecksum)) + ", computed " + std::to_string(unsigned_sum) +
                 "): it is damaged or not a tar header");
      return std::optional<std::uint64_t>();
    }
    if (magic == Magic::kNone) {
      Report(Diag::kTarHeaderInvalid, at,
             "the header at byte " + std::to_string(at) +
                 " has no ustar, pax or GNU magic (an old-style header is not accepted)");
      return std::optional<std::uint64_t>();
    }
    std::string ustar_name = CString(block, kName);
    const std::string prefix = CString(block, kPrefix);
    const char type = At(block, kTypeflag);
    if (magic == Magic::kPosix && !prefix.empty()) ustar_name = prefix + "/" + ustar_name;
    if (magic == Magic::kGnu && !prefix.empty() && type != 'L' && type != 'K' && type != 'S') {
      // GNU tar keeps times there and ignores it; Python's tarfile joins any non-empty prefix
      // to the name whatever the magic: two readers, two names.
      Report(Diag::kTarNameConflict, at,
             "member " + QuoteForMessage(ustar_name) + " has a GNU header whose POSIX prefix field holds " +
                 QuoteForMessage(prefix) + ": GNU tar names it " + QuoteForMessage(ustar_name) + ", Python's tarfile " +
                 QuoteForMessage(prefix + "/" + ustar_name));
      return std::optional<std::uint64_t>();
    }
    const std::string shown = QuoteForMessage(pending.long_name                  ? *pending.long_name
                                              : pending.pax && pending.pax->path ? *pending.pax->path
                                                                                 : ustar_name);

    // Numeric fields: mode, uid, gid, size, mtime; devmajor/devminor when not blank.
    std::uint64_t header_size = 0;
    for (const auto& [field, label] :
         {std::pair{kMode, "mode"}, std::pair{kUid, "uid"}, std::pair{kGid, "gid"}, std::pair{kSize, "size"},
          std::pair{kMtime, "mtime"}, std::pair{kDevMajor, "devmajor"}, std::pair{kDevMinor, "devminor"}}) {
      const std::string_view text = FieldText(block, field);
      const bool device_field = field.at == kDevMajor.at || field.at == kDevMinor.at;
      if (device_field && std::all_of(text.begin(), text.end(), [](char c) { return c == '\0' || c == ' '; })) {
        continue;
      }
      const std::uint64_t value = ParseNumeric(text, error);
      if (error != NumericError::kNone) {
        Report(Diag::kTarHeaderInvalid, at,
               "member " + shown + " has an invalid " + label + " field " + QuoteForMessage(std::string(text)) +
                   (error == NumericError::kNegative ? " (a negative base-256 number)" : ""));
        return std::optional<std::uint64_t>();
      }
      if (field.at == kSize.at) header_size = value;
    }

    // Where the data ends and the next header starts, checked against the file.
    const std::uint64_t data_offset = at + kTarBlock;
    std::uint64_t data_size = header_size;
    // A pending pax size is for the member proper: an extension record's own size is its
    // header's, always (GNU tar, bsdtar and tarfile agree; a reader that applied it to a
    // following 'L' record would locate every later header elsewhere).
    const bool extension_record = type == 'x' || type == 'g' || type == 'L' || type == 'K';
    if (!extension_record && pending.pax && pending.pax->size) {
      if (header_size != 0 && header_size != *pending.pax->size) {
        Report(Diag::kTarSizeConflict, at,
               "member " + shown + " has size " + std::to_string(header_size) + " in its header but " +
                   std::to_string(*pending.pax->size) +
                   " in its pax record: readers would disagree on where its data ends");
        return std::optional<std::uint64_t>();
      }
      data_size = *pending.pax->size;
    }
    const std::uint64_t file_size = file_.size();
    if (data_size > file_size - data_offset) {
      Report(Diag::kTarMemberPastEnd, at,
             "member " + shown + " declares " + std::to_string(data_size) + " bytes of data at byte " +
                 std::to_string(data_offset) + ", past the end of the archive (" + std::to_string(file_size) +
                 " bytes)");
      return std::optional<std::uint64_t>();
    }
    const std::uint64_t padded = (data_size + kTarBlock - 1) / kTarBlock * kTarBlock;  // data_size < 2^63 here
    const std::uint64_t next = data_offset + std::min(padded, file_size - data_offset);

    switch (type) {
      case 'x': {
        if (pending.pax) {
          Report(Diag::kTarExtensionRepeated, at,
                 "a member has two pax extended headers (the second at byte " + std::to_string(at) +
                     "): readers would disagree on which applies");
          return std::optional<std::uint64_t>();
        }
        auto records = ReadPax("extended", at, data_offset, data_size);
        if (!records) return records.error();
        if (!*records) return std::optional<std::uint64_t>();
        if (!pending.long_name) pending.first_offset = at;
        pending.pax = std::move(**records);
        return std::optional<std::uint64_t>(next);
      }
      case 'L': {
        if (pending.long_name) {
          Report(Diag::kTarExtensionRepeated, at,
                 "a member has two GNU long-name records (the second at byte " + std::to_string(at) +
                     "): readers would disagree on which applies");
          return std::optional<std::uint64_t>();
        }
        if (data_size > kMaxLongName || data_size == 0) {
          Report(Diag::kTarHeaderInvalid, at,
                 "a GNU long-name record of " + std::to_string(data_size) + " bytes is " +
                     (data_size == 0 ? "empty" : "over the " + std::to_string(kMaxLongName) + "-byte bound"));
          return std::optional<std::uint64_t>();
        }
        auto data = ReadData(data_offset, data_size);
        if (!data) return data.error();
        std::string name = data->substr(0, data->find('\0'));
        if (!pending.pax) pending.first_offset = at;
        pending.long_name = std::move(name);
        return std::optional<std::uint64_t>(next);
      }
      case 'g': {
        auto records = ReadPax("global", at, data_offset, data_size);
        if (!records) return records.error();
        if (!*records) return std::optional<std::uint64_t>();
        for (const std::string& key : (*records)->keys) {
          if (key != "comment" && key != "mtime") {
            Report(Diag::kTarGlobalHeader, at,
                   "the pax global header at byte " + std::to_string(at) + " sets " + QuoteForMessage(key) +
                       " for every member after it; only comment and mtime are accepted");
            break;
          }
        }
        return std::optional<std::uint64_t>(next);
      }
      default:
        break;
    }

    // A member proper: its name from the extensions, which must agree with each other and
    // with the ustar name.
    TarMember member;
    member.header_offset = pending.pax || pending.long_name ? pending.first_offset : at;
    member.data_offset = data_offset;
    member.size = data_size;
    member.type = type;
    member.name = ustar_name;
    const std::optional<std::string> pax_path = pending.pax ? pending.pax->path : std::nullopt;
    const bool sparse_pax = pending.pax && pending.pax->sparse;
    if (pending.long_name && pax_path && *pending.long_name != *pax_path) {
      Report(Diag::kTarExtensionRepeated, at,
             "member at byte " + std::to_string(at) + " is named " + QuoteForMessage(*pax_path) +
                 " by its pax record but " + QuoteForMessage(*pending.long_name) + " by its GNU long-name record");
      pending = {};
      return std::optional<std::uint64_t>();
    }
    const std::optional<std::string> long_name = pax_path ? pax_path : pending.long_name;
    pending = {};
    if (long_name) {
      if (!UstarNameAgrees(ustar_name, *long_name)) {
        Report(Diag::kTarNameConflict, at,
               "member " + QuoteForMessage(*long_name) + " carries the ustar name " + QuoteForMessage(ustar_name) +
                   ": a reader that ignores the extended name would read another file");
        return std::optional<std::uint64_t>(next);
      }
      member.name = *long_name;
    }
    const std::string quoted = QuoteForMessage(member.name);

    if (type == '0' || type == '\0') {
      if (sparse_pax) {
        Report(Diag::kTarSparseMember, at,
               "member " + quoted + " is a sparse file (GNU.sparse pax records): its data is not stored as written");
        return std::optional<std::uint64_t>(next);
      }
      index_.members.push_back(std::move(member));
      return std::optional<std::uint64_t>(next);
    }
    if (type == '5') {
      index_.members.push_back(std::move(member));
      return std::optional<std::uint64_t>(next);
    }
    const std::string what = TypeDescription(type);
    Diag kind = Diag::kTarMemberTypeUnsupported;
    if (type == '1') kind = Diag::kTarHardlinkMember;
    if (type == '2') kind = Diag::kTarSymlinkMember;
    if (type == '3' || type == '4') kind = Diag::kTarDeviceMember;
    if (type == '6') kind = Diag::kTarFifoMember;
    if (type == 'S') kind = Diag::kTarSparseMember;
    std::string message = "member " + quoted + " is " + what;
    if (type == '1' || type == '2') {
      message += " to " + QuoteForMessage(CString(block, Field{157, 100})) +
                 ": an artifact holds regular files only, and a link can point outside it";
    } else {
      message += ": an artifact holds regular files only";
    }
    Report(kind, at, std::move(message));
    return std::optional<std::uint64_t>(next);
  }

  // The first zero block is at `at`: a second must follow, then only zeros to the end.
  IoResult<TarIndex> ReadEnd(std::uint64_t at) {
    const std::uint64_t size = file_.size();
    if (size - at < 2 * kTarBlock) {
      Report(Diag::kTarEndMarkerMissing, at,
             "the archive ends after one zero block at byte " + std::to_string(at) +
                 "; the end marker is two: it was truncated");
      return Finish(false);
    }
    std::vector<std::byte> chunk(64 << 10);
    for (std::uint64_t from = at + kTarBlock; from < size;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), size - from));
      if (auto read = file_.ReadAt(from, std::span(chunk).first(n)); !read) return read.error();
      const auto nonzero = std::find_if(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n),
                                        [](std::byte b) { return b != std::byte{0}; });
      if (nonzero != chunk.begin() + static_cast<std::ptrdiff_t>(n)) {
        const std::uint64_t where = from + static_cast<std::uint64_t>(nonzero - chunk.begin());
        if (where < at + 2 * kTarBlock) {
          Report(Diag::kTarEndMarkerMissing, at,
                 "the archive has one zero block at byte " + std::to_string(at) +
                     " followed by data; the end marker is two zero blocks");
        } else {
          Report(Diag::kTarDataAfterEnd, where,
                 "the archive has non-zero bytes at byte " + std::to_string(where) +
                     ", after its end marker: content no tar reader lists travels with the artifact");
        }
        return Finish(false);
      }
      from += n;
    }
    return Finish(true);
  }

  // Names (artifact-format.md section 1): all bare, all "./", or all under one top folder.
  TarIndex Finish(bool complete) {
    CheckNames();
    index_.complete = complete;
    return std::move(index_);
  }

  void CheckNames() {
    struct Named {
      TarMember* member;
      std::string name;  // "./" removed
      bool dotted;
    };
    std::vector<Named> named;
    for (TarMember& m : index_.members) {
      const std::string& n = m.name;
      const std::string quoted = QuoteForMessage(n);
      if (!n.empty() && n.front() == '/') {
        Report(Diag::kTarPathEscape, m.header_offset, "member " + quoted + " has an absolute name");
        continue;
      }
      bool escapes = false;
      for (std::size_t from = 0; from <= n.size();) {
        const std::size_t slash = std::min(n.find('/', from), n.size());
        if (std::string_view(n).substr(from, slash - from) == "..") escapes = true;
        from = slash + 1;
      }
      if (escapes) {
        Report(Diag::kTarPathEscape, m.header_offset,
               "member " + quoted + " has a '..' component: its name leaves the artifact");
        continue;
      }
      std::string stripped = n;
      const bool dotted = n == "." || n.starts_with("./");
      if (dotted) stripped = n == "." ? "" : n.substr(2);
      if (m.type == '5') {
        while (!stripped.empty() && stripped.back() == '/') stripped.pop_back();
      }
      named.push_back({&m, std::move(stripped), dotted});
    }
    if (named.empty()) return;
    // The form is the first member's; the top folder, the first regular member's first component.
    const bool dotted = named.front().dotted;
    std::string top;
    bool top_known = false;
    for (const Named& n : named) {
      if (n.member->type == '5' || n.dotted != dotted) continue;
      const std::size_t slash = n.name.find('/');
      top = slash == std::string::npos ? "" : n.name.substr(0, slash);
      top_known = true;
      break;
    }
    if (!top_known && named.front().member->type == '5') top = named.front().name;
    if (nesting_ == TarNesting::kNested) {
      // Sub-folders are allowed, so a top folder is one every regular member shares.
      std::optional<std::string> shared;
      for (const Named& n : named) {
        if (n.member->type == '5') continue;
        const std::size_t slash = n.name.find('/');
        std::string first = slash == std::string::npos ? std::string() : n.name.substr(0, slash);
        if (!shared) {
          shared = std::move(first);
        } else if (*shared != first) {
          shared = std::string();
          break;
        }
      }
      top = shared.value_or(std::string());
    }
    index_.top_folder = top;
    std::unordered_map<std::string, TarMember*> seen;  // linear in the member count, duplicates or not
    seen.reserve(named.size());
    for (Named& n : named) {
      TarMember& m = *n.member;
      const std::string quoted = QuoteForMessage(m.name);
      if (n.dotted != dotted) {
        Report(Diag::kTarMemberLayout, m.header_offset,
               "member " + quoted + (dotted ? " lacks" : " has") + " the './' prefix the first member " +
                   (dotted ? "has" : "lacks") + ": member names must all take one form");
        continue;
      }
      if (m.type == '5' && nesting_ == TarNesting::kNested) {
        if (m.size != 0) Report(Diag::kTarMemberLayout, m.header_offset, "directory member " + quoted + " has data");
        continue;  // a folder of the archive: its files are members of their own
      }
      if (m.type == '5') {
        if (n.name.empty() || n.name == top) {
          if (m.size != 0) {
            Report(Diag::kTarMemberLayout, m.header_offset, "directory member " + quoted + " has data");
          }
          continue;
        }
        Report(Diag::kTarMemberLayout, m.header_offset,
               "member " + quoted + " is a sub-folder; an artifact holds files only");
        continue;
      }
      std::string_view rest = n.name;
      if (!top.empty()) {
        if (!rest.starts_with(top + "/")) {
          Report(
              Diag::kTarMemberLayout, m.header_offset,
              "member " + quoted + " is outside the top folder " + QuoteForMessage(top) + " the other members share");
          continue;
        }
        rest.remove_prefix(top.size() + 1);
      }
      if (nesting_ == TarNesting::kNested && !rest.empty() && rest.back() != '/' &&
          static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '/')) > kMaxTarNesting) {
        Report(Diag::kTarMemberLayout, m.header_offset,
               "member " + quoted + " nests deeper than " + std::to_string(kMaxTarNesting) + " folders");
        continue;
      }
      if (rest.empty() || (nesting_ == TarNesting::kFlat && rest.find('/') != std::string_view::npos)) {
        Report(Diag::kTarMemberLayout, m.header_offset,
               "member " + quoted + (rest.empty() ? " has an empty name" : " is inside a sub-folder") +
                   "; an artifact holds files at its root only");
        continue;
      }
      if (auto [it, inserted] = seen.emplace(std::string(rest), &m); !inserted) {
        Report(Diag::kTarDuplicateMember, m.header_offset,
               "member " + quoted + " appears twice (first at byte " + std::to_string(it->second->header_offset) +
                   "): readers disagree on which copy is the file");
        it->second->admitted = false;
        continue;
      }
      m.entry_name = std::string(rest);
      m.admitted = true;
    }
  }

  const RandomAccessFile& file_;
  DiagnosticSink& sink_;
  TarNesting nesting_;
  TarIndex index_;
};

}  // namespace

bool HasTarMagic(std::span<const std::byte> head) { return MagicOf(head) != Magic::kNone; }

bool IsTarHeader(std::span<const std::byte> head) {
  if (head.size() < kTarBlock || MagicOf(head) == Magic::kNone) return false;
  Block block{};
  std::copy_n(head.begin(), kTarBlock, block.begin());
  const auto [unsigned_sum, signed_sum] = ChecksumsOf(block);
  NumericError error = NumericError::kNone;
  const std::uint64_t stored = ParseNumeric(FieldText(block, kChecksum), error);
  return error == NumericError::kNone && (stored == unsigned_sum || static_cast<std::int64_t>(stored) == signed_sum);
}

IoResult<TarIndex> ReadTar(const RandomAccessFile& file, DiagnosticSink& sink, TarNesting nesting) {
  return TarReader(file, sink, nesting).Read();
}

namespace {

std::optional<std::string> SniffTar(const FileHead& head) {
  if (!HasTarMagic(head.bytes)) return std::nullopt;
  return "a tar archive";
}

void TarInInventory(std::span<const std::byte> /*head*/, const std::string& description, InventoryItem& item) {
  item.kind = InventoryClass::kArchive;
  item.description = description;
}

}  // namespace

// A Lensemble artifact as an uncompressed tar: its members are read in place (inputs.md 2).
const InputFormat formats::kLensembleTarFormat{
    .kind = InputKind::kLensembleTar,
    .sniff = &SniffTar,
    .opening = InputOpening::kTar,
    .layout = &kLensembleLayout,
    .inventory = &TarInInventory,
    .container = PolyglotContainer::kTar,
};

}  // namespace ckpt
