// Near misses of the hdf5 rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddHdf5NearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // HDF5: the closest files libhdf5 writes that the helper reads cleanly.
  {
    using h5b::FileBuilder;
    PickleNear(
        n, "hdf5-reader-failed", "the real helper on a valid file", "model.h5",
        [] {
          return FileBuilder().Dataset("w", "F32", {2, 3}).Image();
        },
        true);
    PickleNear(
        n, "hdf5-invalid", "a 512-byte user block", "model.h5",
        [] { return FileBuilder(512).Dataset("w", "I64", {3}).Image(); }, true);
    PickleNear(
        n, "hdf5-external-link", "a soft link inside the file", "model.h5",
        [] { return FileBuilder().Dataset("w", "F32", {2}).SoftLink("alias", "/w").Image(); }, true);
    PickleNear(
        n, "hdf5-external-storage", "contiguous data in the file", "model.h5",
        [] { return FileBuilder().Dataset("w", "F64", {4}).Image(); }, true);
    PickleNear(
        n, "hdf5-virtual-dataset", "a chunked dataset", "model.h5",
        [] { return FileBuilder().FilteredDataset("w", 1).Image(); }, true);
    PickleNear(
        n, "hdf5-filter-unsupported", "deflate", "model.h5",
        [] { return FileBuilder().FilteredDataset("w", 1).Image(); }, true);
    PickleNear(
        n, "hdf5-budget-exceeded", "groups 64 deep", "model.h5",
        [] {
          std::string path = "g";
          for (int i = 1; i < 64; ++i) path += "/g";
          return FileBuilder().Group(path).Image();
        },
        true);
  }
}

}  // namespace ckpt::testing
