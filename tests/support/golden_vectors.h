// The spec's golden vectors (artifact-format.md section 9, copied to fixtures/vectors) and
// the content hash each must have: one table for every test that audits them.
#pragma once

namespace ckpt::testing {

struct GoldenVector {
  const char* name;
  const char* hash;
};

inline constexpr GoldenVector kGoldenVectors[] = {
    {"v1-single", "6cfc33b1d22878a421e587fe95100746ed8ee1ff5730d5c6a6e267aab5e9b31e"},
    {"v1-sharded", "6cfc33b1d22878a421e587fe95100746ed8ee1ff5730d5c6a6e267aab5e9b31e"},
    {"v2-single", "d862e43796784071c7afdcacf9af82890f71fd1b9cea3681e6a576a878fd7e1a"},
    {"v1-round1", "881106960b5da1c7c5967e8a1e668728cfca8018aa72d202d3ca6cc60057bfe8"},
};

}  // namespace ckpt::testing
