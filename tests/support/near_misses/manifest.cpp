// Near misses of the manifest rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddManifestNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // manifest
  Add(n, "manifest-dtype-mismatch", "each dtype stored as declared", Clean);
  Add(n, "manifest-shape-mismatch", "a scalar and an empty tensor", Clean);
  Add(n, "manifest-tensor-missing", "every tensor stored", Clean);
  Add(n, "manifest-tensor-unlisted", "every stored tensor listed", Sharded);
}

}  // namespace ckpt::testing
