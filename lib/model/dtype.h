// The dtype table of artifact-format.md section 3 plus the reference reader's other dtypes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ckpt {

/// Element types, independent of any file format: every reader maps its own tokens onto
/// these (safetensors today; GGUF and torch types join as their readers land).
enum class Dtype : std::uint8_t {
  kUnknown,  ///< a token no reader knows
  kF32,
  kBf16,
  kF16,
  kBool,
  kU8,
  kI8,
  kF8E5m2,
  kF8E4m3,
  kF8E8m0,
  kF4,
  kF6E2m3,
  kF6E3m2,
  kI16,
  kU16,
  kI32,
  kU32,
  kF64,
  kI64,
  kU64,
  kC64,
  kF8E4m3fnuz,
  kF8E5m2fnuz,
  kF8E3m4,
};

struct DtypeInfo {
  Dtype id;
  std::string_view safetensors;  ///< token in a safetensors header ("F32")
  std::string_view manifest;     ///< token in tensor_manifest ("float32"); empty when not allowed
  std::uint64_t bits;            ///< element width as the reference reader counts it
  [[nodiscard]] bool allowed_in_artifact() const { return !manifest.empty(); }
};

/// A NumPy dtype code without its byte order ("f4", "c16"), as .npy headers, joblib and
/// msgpack name numeric arrays.
struct NumpyDescr {
  std::string_view code;
  std::string_view token;  ///< the safetensors token; empty: none (complex128)
  std::uint64_t size;
};
/// The numeric code `code`; nullptr for any other (object, string, void, datetime).
const NumpyDescr* FindNumpyDescr(std::string_view code);

/// Looks up a safetensors dtype token; nullptr when the reference reader does not know it.
const DtypeInfo* FindSafetensorsDtype(std::string_view token);
/// Looks up a manifest dtype token; nullptr when it is not one of the three allowed.
const DtypeInfo* FindManifestDtype(std::string_view token);

/// Byte size of a tensor computed left to right with every product checked, as section 2
/// defines it (d0 x d1 x ... x itemsize); nullopt on overflow of 64 bits.
std::optional<std::uint64_t> ManifestByteSize(std::span<const std::uint64_t> shape, const DtypeInfo& dtype);

/// What went wrong computing a safetensors tensor's byte size the reference's way.
enum class SizeError { kNone, kOverflow, kMisaligned };
struct TensorSize {
  std::uint64_t bytes = 0;
  SizeError error = SizeError::kNone;
};
/// The reference reader's computation: elements, then bits, then a multiple-of-8 check.
TensorSize SafetensorsByteSize(std::span<const std::uint64_t> shape, const DtypeInfo& dtype);

}  // namespace ckpt
