// Fire cases of the manifest rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddManifestFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // manifest against weights
  Add(c, "manifest-tensor-missing", CI, "dropped from weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.pop_back();
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  Add(c, "manifest-tensor-unlisted", CI, "extra in weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.push_back({"encoder.smuggled", "encoder", "float32", {2}, ""});
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  Add(c, "manifest-dtype-mismatch", CI, "float16 vs bfloat16",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0)["dtype"] = "bfloat16"; }); });
  Add(c, "manifest-shape-mismatch", CI, "[2,3] vs [3,2]", [] {
    return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["shape"] = boost::json::array{3, 2}; });
  });
}

}  // namespace ckpt::testing
