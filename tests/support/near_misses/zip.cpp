// Near misses of the zip rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddZipNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleNear(n, "zip-structure", "data descriptors as torch 1.x writes them", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    for (ZipEntry& e : entries) e.descriptor = true;
    return BuildZip(entries);
  });
  PickleNear(n, "zip-header-mismatch", "zero local sizes with a data descriptor", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].descriptor = true;
    return BuildZip(entries);
  });
  PickleNear(n, "zip-crc-mismatch", "every CRC-32 right", "model.pt", [] { return OneTensorZip(); });
  PickleNear(n, "zip-ambiguous", "a zip with an archive comment", "model.pt", [] {
    std::string zip = OneTensorZip();
    const std::string comment = "written by a tool that signs its archives";
    zip[zip.size() - 2] = static_cast<char>(comment.size());
    return zip + comment;
  });
  PickleNear(n, "zip-member-unexpected", "every record torch 2 writes", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    for (const char* extra : {"archive/.data/version", "archive/.format_version", "archive/.storage_alignment",
                              "archive/.data/serialization_id"}) {
      ZipEntry e;
      e.name = extra;
      e.data = "1";
      entries.push_back(e);
    }
    return BuildZip(entries);
  });
  PickleNear(n, "zip-member-compressed", "stored members", "model.pt", [] { return OneTensorZip(); });
}

}  // namespace ckpt::testing
