// Near misses of the msgpack rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddMsgpackNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // Flax msgpack: exact sizes, a chunked array, a 1 MiB key, 128 levels, one key in two maps, a
  // complex (ext 2), UTF-8 text, no byte after the map.
  {
    using mp::Map, mp::Str;
    const std::string w = Str("w") + mp::ZerosF32({3});
    PickleNear(
        n, "msgpack-array-invalid", "exact sizes and a chunked array", "flax_model.msgpack",
        [w] {
          const std::string chunked = Map(3) + Str("__msgpack_chunked_array__") + mp::kTrue + Str("shape") + Map(2) +
                                      Str("0") + mp::Uint(2) + Str("1") + mp::Uint(3) + Str("chunks") + Map(2) +
                                      Str("0") + mp::ZerosF32({4}) + Str("1") + mp::ZerosF32({2});
          return Map(2) + w + Str("big") + chunked;
        },
        true);
    PickleNear(
        n, "msgpack-budget-exceeded", "a 1 MiB key", "flax_model.msgpack",
        [] { return Map(1) + Str(std::string(1U << 20U, 'k')) + mp::kNil; }, true);
    PickleNear(
        n, "msgpack-depth-exceeded", "128 levels", "flax_model.msgpack",
        [] {
          std::string nested;
          for (int i = 0; i < 127; ++i) nested += mp::Array(1);
          return Map(1) + Str("a") + nested + mp::kNil;
        },
        true);
    PickleNear(
        n, "msgpack-duplicate-key", "one key in two maps", "flax_model.msgpack",
        [w] { return Map(2) + Str("a") + Map(1) + w + Str("b") + Map(1) + w; }, true);
    PickleNear(
        n, "msgpack-ext-type", "a complex (ext 2)", "flax_model.msgpack",
        [] {
          const std::string one = std::string("\xcb\x3f\xf0", 3) + std::string(6, '\0');
          return Map(1) + Str("z") + mp::Ext(2, mp::Array(2) + one + one);
        },
        true);
    PickleNear(
        n, "msgpack-invalid", "UTF-8 keys and text", "flax_model.msgpack",
        [w] { return Map(2) + w + Str("na\xc3\xafve") + Str("caf\xc3\xa9"); }, true);
    PickleNear(
        n, "msgpack-trailing-data", "nothing after the map", "flax_model.msgpack", [w] { return Map(1) + w; }, true);
  }
}

}  // namespace ckpt::testing
