// Near misses of the torch rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddTorchNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleNear(n, "torch-legacy-layout", "two storages", "model.bin", [] {
    return LegacyCheckpoint(
        StateDictPickle({{"a", "FloatStorage", "k1", 2, 0, {2}, {}}, {"b", "FloatStorage", "k2", 1, 0, {1}, {}}}, true),
        {{"k1", std::string(8, '\0')}, {"k2", std::string(4, '\0')}});
  });
}

}  // namespace ckpt::testing
