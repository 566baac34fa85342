// Fire cases of the numpy rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddNumpyFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleCase(c, "numpy-header-invalid", "data shorter than the shape", "a.npy", [] {
    return Npy("<f4", {3, 4}).substr(0, 100);
  });
  PickleCase(c, "numpy-object-array", "object dtype", "a.npy", [] {
    std::string npy = Npy("|O", {}, 0);
    return npy + SystemPickle(kTouch);
  });
}

}  // namespace ckpt::testing
