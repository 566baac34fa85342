// Fire cases of the index rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddIndexFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // shard index
  Add(c, "index-too-large", CI, "100 MB + 1", [] {
    Files f = Sharded();
    f["weights.index.json"] = std::string(100'000'001, ' ');  // NOLINT(bugprone-string-constructor): one byte over
    return f;
  });
  Add(c, "index-json-invalid", CI, "syntax", [] {
    Files f = Sharded();
    f["weights.index.json"] = "{\"metadata\":";
    return f;
  });
  Add(c, "index-json-too-deep", CI, "128 levels", [] {
    Files f = Sharded();
    f["weights.index.json"] = std::string(128, '{');
    return f;
  });
  Add(c, "index-json-invalid", CI, "not object", [] {
    Files f = Sharded();
    f["weights.index.json"] = "null";
    return f;
  });
  Add(c, "index-duplicate-key", CI, "tensor mapped twice", [] {
    Files f = Sharded();
    f["weights.index.json"] = Replace(f["weights.index.json"], "\"weight_map\":{",
                                      "\"weight_map\":{\"predictor.head.scale\":\"" + kShard0 + "\",");
    return f;
  });
  Add(c, "index-structure", CI, "no metadata", [] { return ShardedWithIndex([](auto& i) { i.erase("metadata"); }); });
  Add(c, "index-structure", CI, "extra key", [] { return ShardedWithIndex([](auto& i) { i["format"] = "pt"; }); });
  Add(c, "index-structure", CI, "total_size float",
      [] { return ShardedWithIndex([](auto& i) { i["metadata"].as_object()["total_size"] = 52.0; }); });
  Add(c, "index-files-mismatch", CI, "unknown shard", [] {
    return ShardedWithIndex(
        [](auto& i) { i["weight_map"].as_object()["predictor.head.scale"] = "weights-00003-of-00003.safetensors"; });
  });
  Add(c, "index-wrong-shard", CI, "shard 2 instead of 0",
      [] { return ShardedWithIndex([](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.bias"] = kShard2; }); });
  Add(c, "index-tensor-unmapped", CI, "key removed",
      [] { return ShardedWithIndex([](auto& i) { i["weight_map"].as_object().erase("encoder.blocks.0.bias"); }); });
  Add(c, "index-total-size", CI, "off by one", [] {
    return ShardedWithIndex([](auto& i) {
      auto& t = i["metadata"].as_object()["total_size"];
      t = boost::json::value_to<std::uint64_t>(t) + 1;
    });
  });
}

}  // namespace ckpt::testing
