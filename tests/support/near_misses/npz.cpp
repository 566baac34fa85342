// Near misses of the npz rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddNpzNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // NumPy .npz: the same archive with each name once passes whole.
  {
    NearMiss m{"npz-duplicate-member", "w.npy and w2.npy", [] {
                 return Files{{"weights.npz", pk::NpzOf({{"w.npy", pk::Npy("<f4", {2})},
                                                         {"b.npy", pk::Npy("<i8", {1}, 8)},
                                                         {"w2.npy", pk::Npy("<f4", {3})}})}};
               }};
    m.form = InputForm::kFile;
    m.clean = true;
    n.push_back(std::move(m));
  }

  // .npz: numeric members pass, deflated (savez_compressed) as stored; exact sizes; root names.
  PickleNear(
      n, "npz-object-array", "float members, deflated", "weights.npz",
      [] {
        return ZipOf({{"w.npy", Npy("<f4", {2})}, {"b.npy", Npy("<i8", {3}, 8)}}, /*deflate=*/true);
      },
      true);
  PickleNear(
      n, "npz-member-size", "exact size", "weights.npz",
      [] {
        return NpzOf({{"w.npy", Npy("<f4", {3})}});
      },
      true);
  PickleNear(
      n, "npz-member-unexpected", "a root member named like a folder", "weights.npz",
      [] {
        return NpzOf({{"w.npy", Npy("<f4", {2})}, {"sub.b.npy", Npy("<f4", {1})}});
      },
      true);
}

}  // namespace ckpt::testing
