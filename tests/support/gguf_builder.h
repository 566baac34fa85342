// Writes GGUF files for tests (a small GGUF writer): key/values of every type, tensor
// infos and data laid out as ggml's writer does, and every hostile variant the reader must
// refuse (counts, lengths, offsets, types and padding given verbatim when asked).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::testing::gg {

struct Kv {
  std::string key;
  std::uint32_t type = 0;  ///< GGUF value type 0..12
  std::string value;       ///< the encoded value bytes (after the type)
};
Kv U32(const std::string& key, std::uint32_t v);
Kv U64(const std::string& key, std::uint64_t v);
Kv U16(const std::string& key, std::uint16_t v);
Kv I32(const std::string& key, std::int32_t v);
Kv F32(const std::string& key, float v);
Kv Bool(const std::string& key, std::uint8_t v);
Kv Str(const std::string& key, const std::string& v);
Kv StrArray(const std::string& key, const std::vector<std::string>& items);
Kv NestedArray(const std::string& key);  ///< [[1, 2], [3]] of u8

struct Tensor {
  std::string name;
  std::vector<std::uint64_t> dims;          ///< ne0 first
  std::uint32_t type = 0;                   ///< ggml type id
  std::optional<std::uint64_t> offset;      ///< default: ggml's layout
  std::optional<std::uint64_t> data_bytes;  ///< default: from dims and type
};

struct Spec {
  std::uint32_t version = 3;
  std::vector<Kv> kvs;
  std::vector<Tensor> tensors;
  std::uint64_t alignment = 32;               ///< written as general.alignment when not 32
  std::optional<std::uint64_t> tensor_count;  ///< written instead of the real count
  std::optional<std::uint64_t> kv_count;
  std::string trailing;  ///< bytes after the data section
};

/// The bytes of one element block of `type` (ggml's table), or 0 when unknown.
std::uint64_t TensorBytes(const Tensor& t);
std::string Build(const Spec& spec);
/// Writes `count` F32 tensors `blk.<i>.weight` of `elements` each to `path`, streaming the
/// data (perf tests: no gigabyte in memory).
void WriteF32File(const std::string& path, std::size_t count, std::uint64_t elements);

/// A split set as llama-gguf-split writes it: `<prefix>-0000I-of-0000N.gguf`, the tensors of
/// Several() dealt round-robin, split.no (0-based), split.count and split.tensors.count.
std::vector<std::pair<std::string, std::string>> SplitSet(const std::string& prefix, std::uint32_t count);

/// A valid file: F32, F16, BF16, Q8_0, Q4_0 and I32 tensors, a rank-4 one, a chat template.
Spec Several();

}  // namespace ckpt::testing::gg
