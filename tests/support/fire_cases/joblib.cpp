// Fire cases of the joblib rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddJoblibFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  PickleCase(c, "joblib-array-invalid", "padding not 0xff", "model.joblib",
             [] { return JoblibArrays(std::string(16, '\0')); });
  PickleCase(c, "joblib-compression-invalid", "zlib stream cut short", "model.joblib", [] {
    const std::string z = ZlibOf(JoblibArrays());
    return z.substr(0, z.size() - 6);
  });
  PickleCase(c, "joblib-decompression-bomb", "135 MB of bz2 from 158 bytes", "model.joblib", [] {
    static const std::string bomb = [] {
      const std::string zeros(45'000'000, '\0');  // NOLINT(bugprone-string-constructor): the bomb's payload
      return Bz2Of("\x80\x02" + zeros) + Bz2Of(zeros) + Bz2Of(zeros);
    }();
    return bomb;
  });
  PickleCase(c, "joblib-estimator", "a LogisticRegression", "model.joblib", [] {
    // joblib.dump of {"w": array, "model": estimator}: the wrapper's global makes it joblib.
    const std::string estimator = Global("sklearn.linear_model._logistic", "LogisticRegression") + kEmptyTuple +
                                  "\x81" + kEmptyDict + kMark + Str("C") + Int(1) + Str("_sklearn_version") +
                                  Str("1.2.1") + kSetItems + kBuild;
    return JoblibPickle({{"w", "f4", {1}, std::string(4, '\0'), std::nullopt}}, Str("model") + estimator);
  });
}

}  // namespace ckpt::testing
