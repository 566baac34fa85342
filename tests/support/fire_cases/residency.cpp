// Fire cases of the residency rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddResidencyFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // residency
  Add(c, "residency-group-not-shared", RV, "gripper group", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.param_groups.push_back("gripper");
      s.tensors.push_back({"gripper.w", "gripper", "float32", {2}, ""});
    });
  });
  Add(c, "residency-action-head", RV, "action_head component", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"predictor.action_head.w", "predictor", "float32", {2}, ""});
    });
  });
  Add(c, "residency-action-head", RV, "mixed case act_head", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors.push_back({"encoder.Act_Head", "encoder", "float16", {1}, ""}); });
  });
  Add(c, "residency-action-head", RV, "only in weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.push_back({"predictor.action_heads.0", "predictor", "float32", {1}, ""});
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  {
    AuditOptions widened;
    widened.extra_allowed_groups = {"gripper"};
    Add(
        c, "residency-policy-widened", RV, "--allow-group gripper, used",
        [] {
          return FromSpec([](ArtifactSpec& s) {
            s.param_groups.push_back("gripper");
            s.tensors.push_back({"gripper.w", "gripper", "float32", {2}, ""});
          });
        },
        widened);
  }
}

}  // namespace ckpt::testing
