// Near misses of the path rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddPathNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // path
  Add(n, "path-escape", "shard names with dots but no '..'",
      [] { return FromSpec([](ArtifactSpec& s) { s.shards = 2; }); });
}

}  // namespace ckpt::testing
