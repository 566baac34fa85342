// Fire cases of the torch rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddTorchFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleCase(c, "torch-legacy-layout", "bytes after the last storage", "model.bin",
             [] { return OneTensorLegacy() + "tail"; });
}

}  // namespace ckpt::testing
