// Near misses of the joblib rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddJoblibNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleNear(n, "joblib-array-invalid", "0xff padding", "model.joblib", [] { return JoblibArraysNear(); });
  PickleNear(n, "joblib-compression-invalid", "complete zlib stream", "model.joblib",
             [] { return ZlibOf(JoblibArraysNear()); });
  PickleNear(n, "joblib-decompression-bomb", "1 MB of zeros, bz2", "model.joblib", [] {
    return Bz2Of(JoblibPickle({{"w", "u1", {1'000'000}, std::string(1'000'000, '\0'), std::nullopt}}));
  });
  PickleNear(n, "joblib-estimator", "an estimator's name as a string", "model.joblib", [] {
    return JoblibPickle({{"w", "f4", {1}, std::string(4, '\0'), std::nullopt}},
                        Str("class") + Str("sklearn.linear_model._logistic.LogisticRegression"));
  });
}

}  // namespace ckpt::testing
