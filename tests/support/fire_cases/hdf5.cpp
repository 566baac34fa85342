// Fire cases of the hdf5 rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/built_tools.h"
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddHdf5FireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // HDF5 (formats.md section 6): files libhdf5 writes, read by the isolated helper.
  {
    using h5b::FileBuilder;
    FireCase crashed{"hdf5-reader-failed", CI, "the helper dies of SIGSEGV", [] {
                       return Files{{"model.h5", std::string("\x89HDF\r\n\x1a\ncrash", 13)}};
                     }};
    crashed.form = InputForm::kFile;
    crashed.environment = {{"CKPT_H5PROBE", CKPT_H5PROBE_FAKE}};
    c.push_back(std::move(crashed));
    PickleCase(c, "hdf5-invalid", "truncated to half", "model.h5", [] {
      const std::string image = h5b::KerasWeights();
      return image.substr(0, image.size() / 2);
    });
    PickleCase(c, "hdf5-external-link", "a link into /etc/passwd", "model.h5",
               [] { return FileBuilder().Dataset("w", "F32", {2}).ExternalLink("ext", "/etc/passwd", "/x").Image(); });
    PickleCase(c, "hdf5-external-storage", "data in weights.raw", "model.h5",
               [] { return FileBuilder().ExternalStorageDataset("w", "weights.raw").Image(); });
    PickleCase(c, "hdf5-virtual-dataset", "mapped from other.h5", "model.h5",
               [] { return FileBuilder().VirtualDataset("v", "other.h5", "/data").Image(); });
    PickleCase(c, "hdf5-filter-unsupported", "blosc plugin 32001", "model.h5",
               [] { return FileBuilder().FilteredDataset("w", 32001).Image(); });
    PickleCase(c, "hdf5-budget-exceeded", "groups 65 deep", "model.h5", [] {
      std::string path = "g";
      for (int i = 1; i < 65; ++i) path += "/g";
      return FileBuilder().Group(path).Image();
    });
  }
}

}  // namespace ckpt::testing
