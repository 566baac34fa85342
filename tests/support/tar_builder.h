// Writes tars for tests byte by byte (ustar, GNU or pax headers), valid or hostile: links,
// devices, sparse members, long names that disagree, bad checksums, sizes past the end,
// data after the end marker. Fixtures are generated in code; nothing is committed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

struct TarMemberSpec {
  std::string name;  ///< the name readers should see
  std::string data;
  char type = '0';
  std::string linkname;
  bool pax_path = false;                  ///< carry the name in a pax 'x' record
  bool gnu_long_name = false;             ///< carry the name in a GNU 'L' record
  std::optional<std::string> ustar_name;  ///< the ustar name field written (default: the name, split or cut to fit)
  std::vector<std::pair<std::string, std::string>> pax_records;  ///< extra records of the 'x' header
  std::optional<std::uint64_t> header_size;                      ///< the size field written (default: data size)
  std::optional<std::string> raw_size_field;                     ///< the 12 bytes of the size field, verbatim
  bool break_checksum = false;
  bool signed_checksum = false;  ///< the checksum old Sun tar wrote (bytes summed as signed)
  bool duplicate_pax = false;    ///< write its 'x' header twice
  std::string uname = "user";
  std::string prefix_field;  ///< bytes 345.. written verbatim, whatever the magic (GNU tar keeps times there)
};

struct TarSpec {
  std::vector<TarMemberSpec> members;
  bool gnu_magic = false;                                           ///< "ustar  \0" instead of "ustar\0" "00"
  std::vector<std::pair<std::string, std::string>> global_records;  ///< a pax 'g' header first
  int end_blocks = 2;                                               ///< zero blocks after the last member
  std::size_t record = 10240;  ///< pad the archive to a multiple of this (GNU tar's record size); 0: no padding
  std::string trailing;        ///< bytes appended after everything
};

/// A member with a name, data and type; the rest default.
TarMemberSpec Member(std::string name, std::string data = "", char type = '0');

/// The tar's bytes.
std::string BuildTar(const TarSpec& spec);

/// `files` as tar members (sorted by name) under `prefix` ("", "./" or "round-0003/"), with
/// the prefix's own directory member first when it is not bare.
TarSpec TarOfFiles(const Files& files, const std::string& prefix = "");

}  // namespace ckpt::testing
