// Near misses of the torchscript rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddTorchscriptNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // TorchScript and torch.export: a torch.save zip whose archive folder is named "code" is
  // weights; an archive_format that is not "pt2" marks nothing; source text is not an ELF.
  PickleNear(n, "torchscript-code", "torch.save zip under a folder named code", "model.pt", [] {
    return BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}, "code"));
  });
  PickleNear(n, "torchscript-export", "archive_format holding pt3", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    ZipEntry marker;
    marker.name = "archive/archive_format";
    marker.data = "pt3";
    entries.push_back(marker);
    return BuildZip(entries);
  });
  PickleNear(n, "torchscript-native-code", "AOTInductor source, no binary", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/models/model.json", "{}"},
                  {"model/data/aotinductor/model/model.cpp", "// not an ELF\n"}});
  });
}

}  // namespace ckpt::testing
