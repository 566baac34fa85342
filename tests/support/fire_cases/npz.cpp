// Fire cases of the npz rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddNpzFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // NumPy .npz (formats.md section 2): each a file input, a zip of .npy members.
  {
    FireCase fc{"npz-duplicate-member", CI, "w.npy twice", [] {
                  return Files{{"weights.npz", pk::NpzOf({{"w.npy", pk::Npy("<f4", {2})},
                                                          {"b.npy", pk::Npy("<i8", {1}, 8)},
                                                          {"w.npy", pk::Npy("<f4", {3})}})}};
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }

  PickleCase(c, "npz-object-array", "object member", "weights.npz", [] {
    return NpzOf({{"w.npy", Npy("<f4", {2})}, {"o.npy", Npy("|O", {}, 0) + SystemPickle(kTouch)}});
  });
  PickleCase(c, "npz-member-size", "4 bytes short", "weights.npz", [] {
    const std::string w = Npy("<f4", {3});
    return NpzOf({{"w.npy", w.substr(0, w.size() - 4)}});
  });
  PickleCase(c, "npz-member-unexpected", "member in a folder", "weights.npz", [] {
    return NpzOf({{"w.npy", Npy("<f4", {2})}, {"sub/b.npy", Npy("<f4", {1})}});
  });
}

}  // namespace ckpt::testing
