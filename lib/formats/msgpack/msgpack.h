// Flax / JAX msgpack checkpoints (formats.md section 8): what flax.serialization.to_bytes
// writes, one msgpack map (the state dict, str keys) whose arrays are ext type 1 (ndarray:
// a packed [shape, dtype name, bytes]), 2 (a Python complex) or 3 (a numpy scalar), and
// arrays above 2^30 bytes a `__msgpack_chunked_array__` dict. Read strictly and iteratively
// (no recursion, every length checked against the bytes left before anything is taken), array
// bodies skipped, never read; each array is listed by its key path joined with `.`.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace ckpt::msgpack {

/// Whether `head` (a file's first bytes) starts a msgpack map whose first key is a str: the
/// recognition of formats.md section 1 row 16. The description, or nullopt.
std::optional<std::string> Sniff(std::span<const std::byte> head);

}  // namespace ckpt::msgpack
