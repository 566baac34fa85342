// Near misses of the numpy rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddNumpyNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleNear(n, "numpy-header-invalid", "a 0-d array", "a.npy", [] { return Npy("<f4", {}); });
  PickleNear(n, "numpy-object-array", "float64 array", "a.npy", [] { return Npy("<f8", {2}, 8); });
}

}  // namespace ckpt::testing
