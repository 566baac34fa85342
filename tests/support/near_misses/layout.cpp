// Near misses of the layout rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddLayoutNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // layout
  Add(n, "layout-file-changed", "nothing changes", Clean);
  Add(n, "layout-header-missing", "present", Clean);
  Add(n, "layout-index-missing", "sharded with its index", Sharded);
  Add(n, "layout-mixed", "sharded only", Sharded);
  Add(n, "layout-no-weights", "one weight file", Clean);
  Add(n, "layout-shard-numbering", "two shards, the fewest allowed",
      [] { return FromSpec([](ArtifactSpec& s) { s.shards = 2; }); });
  Add(n, "layout-stray-entry", "exactly the layout's files", Sharded);
  Add(n, "layout-symlink", "no link", Clean);
}

}  // namespace ckpt::testing
