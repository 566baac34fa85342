// Near misses of the tar rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddTarNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  TarNear(n, "tar-checksum-invalid", "old Sun tar's signed checksum", [](TarSpec& t) {
    t.members[0].uname = "us\xC3\xA9r";
    t.members[0].signed_checksum = true;
  });
  TarNear(n, "tar-header-invalid", "space-padded octal size", [](TarSpec& t) {
    std::string digits = std::to_string(0);
    std::uint64_t size = t.members[1].data.size();
    std::string octal;
    do {
      octal.insert(octal.begin(), static_cast<char>('0' + (size & 7)));
      size >>= 3;
    } while (size);
    t.members[1].raw_size_field = std::string(11 - octal.size(), ' ') + octal + " ";
  });
  TarNear(n, "tar-member-past-end", "base-256 size that fits", [](TarSpec& t) {
    std::string field(12, '\0');
    field[0] = static_cast<char>(0x80);
    std::uint64_t size = t.members.back().data.size();
    for (int i = 11; i >= 4; --i, size >>= 8) field[static_cast<std::size_t>(i)] = static_cast<char>(size & 0xFF);
    t.members.back().raw_size_field = field;
  });
  TarNear(n, "tar-end-marker-missing", "two zero blocks, no record padding", [](TarSpec& t) { t.record = 0; });
  TarNear(n, "tar-data-after-end", "zeros past the record padding",
          [](TarSpec& t) { t.trailing = std::string(3000, '\0'); });
  for (const char* rule : {"tar-symlink-member", "tar-hardlink-member", "tar-device-member", "tar-fifo-member",
                           "tar-sparse-member", "tar-member-type-unsupported"}) {
    TarNear(
        n, rule, "GNU tar -C dir . (a './' directory member)", [](TarSpec&) {}, "./");
  }
  TarNear(n, "tar-global-header", "global comment and mtime", [](TarSpec& t) {
    t.global_records = {{"comment", "round 3"}, {"mtime", "1767225600"}};
  });
  TarNear(n, "tar-extension-repeated", "pax path and GNU long name agree", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].gnu_long_name = true;
  });
  TarNear(n, "tar-name-conflict", "long top folder: ustar name is the first 100 bytes", [](TarSpec& t) {
    const std::string top = std::string(120, 'r') + "/";
    for (TarMemberSpec& m : t.members) {
      m.name = top + m.name;
      m.pax_path = true;
    }
  });
  TarNear(n, "tar-name-conflict", "non-ASCII top folder: ustar name with '?' (Python tarfile)", [](TarSpec& t) {
    const std::string top = "r\xC3\xB6und/";
    for (TarMemberSpec& m : t.members) {
      m.name = top + m.name;
      m.pax_path = true;
      m.ustar_name = "r?und/" + m.name.substr(top.size());
    }
  });
  TarNear(n, "tar-name-conflict", "GNU headers, NUL prefix fields, a GNU long name", [](TarSpec& t) {
    t.gnu_magic = true;
    t.members[1].gnu_long_name = true;
  });
  TarNear(n, "tar-size-conflict", "a GNU long name after a pax size (the size is the member's)", [](TarSpec& t) {
    t.members[1].gnu_long_name = true;
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size())}};
  });
  TarNear(n, "tar-size-conflict", "pax size with a zero header size", [](TarSpec& t) {
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size())}};
    t.members[1].header_size = 0;
  });
  TarNear(
      n, "tar-duplicate-member", "top folder and its directory member", [](TarSpec&) {}, "round-0003/");
  TarNear(
      n, "tar-path-escape", "dots inside a name", [](TarSpec&) {}, "round..0003/");
  TarNear(
      n, "tar-member-layout", "./ top folder", [](TarSpec&) {}, "./round-0003/");
}

}  // namespace ckpt::testing
