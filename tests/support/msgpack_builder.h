// Writes msgpack bytes for tests (a small msgpack packer): the heads msgpack-python picks for
// each value (the smallest form), and Flax's array ext (flax.serialization's
// _ndarray_to_bytes: ext 1 holding a packed [shape, dtype name, bytes]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::testing::mp {

std::string Map(std::uint64_t entries);  ///< a map head; its keys and values follow
std::string Array(std::uint64_t items);  ///< an array head; its items follow
std::string Str(const std::string& text);
std::string Bin(const std::string& bytes);
std::string Uint(std::uint64_t v);
std::string Ext(std::int8_t type, const std::string& payload);
inline const std::string kNil = "\xc0";
inline const std::string kTrue = "\xc3";

/// Flax's ext 1 (3 for a scalar): [shape, dtype name, bytes].
std::string Ndarray(const std::vector<std::uint64_t>& shape, const std::string& dtype, const std::string& bytes,
                    std::int8_t type = 1);
/// A float32 array of `shape`, zero bytes.
std::string ZerosF32(const std::vector<std::uint64_t>& shape);

}  // namespace ckpt::testing::mp
