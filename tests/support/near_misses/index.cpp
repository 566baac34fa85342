// Near misses of the index rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddIndexNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // index
  Add(n, "index-duplicate-key", "many tensors mapped to one shard", Sharded);
  Add(n, "index-files-mismatch", "every shard mapped", Sharded);
  Add(n, "index-json-invalid", "escaped tensor names", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    const std::size_t at = index.find("n\xC3\xA9t");
    index.replace(at, 4, "n\\u00e9t");
    return f;
  });
  Add(n, "index-json-too-deep", "126 levels of free metadata", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    index.insert(index.find("\"metadata\":{") + 12, "\"free\":" + std::string(125, '[') + std::string(125, ']') + ",");
    return f;
  });
  Add(n, "index-structure", "extra metadata keys", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    index.insert(index.find("\"metadata\":{") + 12, "\"format\":\"pt\",");
    return f;
  });
  Add(n, "index-tensor-unmapped", "every tensor mapped", Sharded);
  Add(n, "index-too-large", "an ordinary index", Sharded);
  Add(n, "index-total-size", "an empty tensor counts 0 bytes", Sharded);
  Add(n, "index-wrong-shard", "every mapping right", Sharded);
}

}  // namespace ckpt::testing
