// Near misses of the hash rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddHashNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // hash
  Add(n, "hash-mismatch", "other bytes, hash rewritten to match",
      [] { return FromSpec([](ArtifactSpec& s) { s.tensors[1].data[0] ^= 1; }); });
  Add(
      n, "hash-not-verified", "tampered, but hashed",
      [] {
        Files f = Clean();
        f["weights.safetensors"].back() ^= 1;
        return f;
      },
      false);
  {
    AuditOptions pinned;
    pinned.expected_hash = ArtifactSpec::Clean().ContentHash();
    Add(n, "hash-unexpected", "--expect-hash of the right hash", Clean, true, pinned);
  }
}

}  // namespace ckpt::testing
