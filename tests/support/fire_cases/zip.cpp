// Fire cases of the zip rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddZipFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleCase(c, "zip-structure", "bytes before the archive", "model.pt", [] {
    return BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}), "prefix");
  });
  PickleCase(c, "zip-header-mismatch", "local name differs", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].local_name = "archive/data.pkx";
    return BuildZip(entries);
  });
  PickleCase(c, "zip-crc-mismatch", "data.pkl CRC-32", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].crc = 7;
    return BuildZip(entries);
  });
  PickleCase(c, "zip-member-unexpected", "unreferenced record", "model.pt", [] {
    return TorchZip(OneTensorPickle(), {{"0", OneTensorRecord()}, {"1", "spare"}});
  });
  PickleCase(c, "zip-member-compressed", "deflate method", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[3].method = 8;
    return BuildZip(entries);
  });
  PickleCase(c, "zip-ambiguous", "names equal but for case", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    ZipEntry shadow;
    shadow.name = "archive/DATA.PKL";
    shadow.data = SystemPickle("touch /tmp/x");
    entries.push_back(shadow);
    return BuildZip(entries);
  });
}

}  // namespace ckpt::testing
