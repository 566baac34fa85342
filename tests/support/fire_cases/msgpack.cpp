// Fire cases of the msgpack rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddMsgpackFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // Flax msgpack checkpoints (formats.md section 8), as flax.serialization.to_bytes writes them.
  {
    using mp::Map, mp::Str;
    const std::string w = Str("w") + mp::ZerosF32({3});
    PickleCase(c, "msgpack-array-invalid", "4 bytes short", "flax_model.msgpack",
               [] { return Map(1) + Str("w") + mp::Ndarray({3}, "float32", std::string(8, '\0')); });
    PickleCase(c, "msgpack-budget-exceeded", "a 1 MiB + 1 key", "flax_model.msgpack",
               [] { return Map(1) + Str(std::string((1U << 20U) + 1, 'k')) + mp::kNil; });
    PickleCase(c, "msgpack-depth-exceeded", "200 nested lists", "flax_model.msgpack", [] {
      std::string nested;
      for (int i = 0; i < 200; ++i) nested += mp::Array(1);
      return Map(1) + Str("a") + nested + mp::kNil;
    });
    PickleCase(c, "msgpack-duplicate-key", "key w twice", "flax_model.msgpack", [w] { return Map(2) + w + w; });
    PickleCase(c, "msgpack-ext-type", "a timestamp (ext -1)", "flax_model.msgpack",
               [] { return Map(1) + Str("t") + mp::Ext(-1, std::string(4, '\0')); });
    PickleCase(c, "msgpack-invalid", "an int map key", "flax_model.msgpack",
               [w] { return Map(2) + w + mp::Uint(1) + mp::kNil; });
    PickleCase(c, "msgpack-trailing-data", "junk after the map", "flax_model.msgpack",
               [w] { return Map(1) + w + "junk"; });
  }
}

}  // namespace ckpt::testing
