// Fire cases of the hash rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddHashFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // hash
  Add(c, "hash-mismatch", CI, "flipped data byte", [] {
    Files f = Clean();
    f["weights.safetensors"].back() ^= 0x01;
    return f;
  });
  Add(c, "hash-mismatch", CI, "declared hash edited",
      [] { return CleanWithHeader([](auto& h) { h["content_hash"] = std::string(64, '0'); }); });
  {
    AuditOptions pinned;
    pinned.expected_hash = std::string(64, 'b');
    Add(c, "hash-unexpected", CI, "pinned other hash", Clean, pinned);
  }
  {
    AuditOptions structure_only;
    structure_only.compute_hash = false;
    Add(
        c, "hash-not-verified", CI, "--no-hash on a tampered artifact",
        [] { return CleanWithHeader([](auto& h) { h["content_hash"] = std::string(64, '0'); }); }, structure_only);
  }
}

}  // namespace ckpt::testing
