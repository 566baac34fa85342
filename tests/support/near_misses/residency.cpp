// Near misses of the residency rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddResidencyNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // residency
  Add(n, "residency-action-head", "look-alike words that are not action heads", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.action_header.w", "encoder", "float32", {1}, ""});
      s.tensors.push_back({"encoder.transaction_head.w", "encoder", "float32", {1}, ""});
    });
  });
  Add(n, "residency-group-not-shared", "only shared groups", Clean);
  {
    AuditOptions widened;
    widened.extra_allowed_groups = {"gripper"};
    Add(n, "residency-policy-widened", "--allow-group of a group the artifact does not use", Clean, true, widened);
  }
}

}  // namespace ckpt::testing
