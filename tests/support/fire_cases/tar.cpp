// Fire cases of the tar rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddTarFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  TarCase(c, "tar-checksum-invalid", "one bit off", [](TarSpec& t) { t.members[1].break_checksum = true; });
  TarCase(c, "tar-header-invalid", "size field not octal",
          [](TarSpec& t) { t.members[1].raw_size_field = std::string("0000000001x\0", 12); });
  TarCase(c, "tar-header-invalid", "negative base-256 size",
          [](TarSpec& t) { t.members[1].raw_size_field = std::string(12, static_cast<char>(0xFF)); });
  TarCase(c, "tar-member-past-end", "octal size past the end",
          [](TarSpec& t) { t.members.back().header_size = 1 << 30; });
  TarCase(c, "tar-member-past-end", "base-256 size past the end",
          [](TarSpec& t) { t.members.back().raw_size_field = Base256(1ULL << 40); });
  TarCase(c, "tar-end-marker-missing", "cut after the last member", [](TarSpec& t) {
    t.end_blocks = 0;
    t.record = 0;
  });
  TarCase(c, "tar-end-marker-missing", "one zero block", [](TarSpec& t) {
    t.end_blocks = 1;
    t.record = 0;
  });
  TarCase(c, "tar-data-after-end", "bytes after the padding", [](TarSpec& t) { t.trailing = "appended payload"; });
  TarCase(c, "tar-symlink-member", "link to /etc/passwd", [](TarSpec& t) {
    TarMemberSpec link = Member("weights.link", "", '2');
    link.linkname = "/etc/passwd";
    t.members.push_back(link);
  });
  TarCase(c, "tar-hardlink-member", "hard link", [](TarSpec& t) {
    TarMemberSpec link = Member("copy.json", "", '1');
    link.linkname = "header.json";
    t.members.push_back(link);
  });
  TarCase(c, "tar-device-member", "character device", [](TarSpec& t) { t.members.push_back(Member("null", "", '3')); });
  TarCase(c, "tar-fifo-member", "FIFO", [](TarSpec& t) { t.members.push_back(Member("pipe", "", '6')); });
  TarCase(c, "tar-sparse-member", "GNU type S", [](TarSpec& t) { t.members.push_back(Member("holes.bin", "", 'S')); });
  TarCase(c, "tar-sparse-member", "pax GNU.sparse records", [](TarSpec& t) {
    TarMemberSpec m = Member("holes.bin", "abc");
    m.pax_records = {{"GNU.sparse.major", "1"}, {"GNU.sparse.minor", "0"}};
    t.members.push_back(m);
  });
  TarCase(c, "tar-member-type-unsupported", "volume label",
          [](TarSpec& t) { t.members.insert(t.members.begin(), Member("LABEL", "", 'V')); });
  TarCase(c, "tar-global-header", "global path record", [](TarSpec& t) { t.global_records = {{"path", "evil.json"}}; });
  TarCase(c, "tar-extension-repeated", "two pax headers", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].duplicate_pax = true;
  });
  TarCase(c, "tar-extension-repeated", "pax path and GNU long name disagree", [](TarSpec& t) {
    TarMemberSpec& m = t.members[1];
    m.gnu_long_name = true;
    m.pax_records = {{"path", "weights.index.json"}};
  });
  TarCase(c, "tar-name-conflict", "ustar name names another file", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].ustar_name = "header.json";
  });
  TarCase(c, "tar-name-conflict", "GNU header with a POSIX prefix (tarfile joins it)", [](TarSpec& t) {
    t.gnu_magic = true;
    t.members[1].prefix_field = "../../escaped";
  });
  TarCase(c, "tar-size-conflict", "pax size differs", [](TarSpec& t) {
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size() - 1)}};
  });
  TarCase(c, "tar-duplicate-member", "header.json twice", [](TarSpec& t) { t.members.push_back(t.members[0]); });
  TarCase(c, "tar-path-escape", "parent component",
          [](TarSpec& t) { t.members.push_back(Member("../escape.json", "{}")); });
  TarCase(c, "tar-path-escape", "absolute name", [](TarSpec& t) { t.members.push_back(Member("/etc/cron.d/x", "x")); });
  TarCase(c, "tar-member-layout", "file in a sub-folder",
          [](TarSpec& t) { t.members.push_back(Member("extra/notes.txt", "x")); });
  TarCase(c, "tar-member-layout", "mixed ./ and bare names",
          [](TarSpec& t) { t.members[1].name = "./" + t.members[1].name; });
}

}  // namespace ckpt::testing
