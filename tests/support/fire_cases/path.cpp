// Fire cases of the path rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddPathFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // paths
  Add(c, "path-escape", CI, "dot-dot in weight_files", [] {
    return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"../weights.safetensors"}; });
  });
  Add(c, "path-escape", CI, "absolute in weight_map", [] {
    return ShardedWithIndex([](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.bias"] = "/etc/passwd"; });
  });
  Add(c, "path-escape", CI, "backslash", [] {
    return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"sub\\weights.safetensors"}; });
  });
  Add(c, "path-escape", CI, "drive prefix",
      [] { return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"C:weights.safetensors"}; }); });
}

}  // namespace ckpt::testing
