#include "lib/formats/dtype.h"

#include <array>

#include "lib/core/checked_math.h"

namespace ckpt {
namespace {

constexpr std::array<DtypeInfo, 23> kDtypes{{
    {"F32", "float32", 32},
    {"BF16", "bfloat16", 16},
    {"F16", "float16", 16},
    {"BOOL", "", 8},
    {"U8", "", 8},
    {"I8", "", 8},
    {"F8_E5M2", "", 8},
    {"F8_E4M3", "", 8},
    {"F8_E8M0", "", 8},
    {"F4", "", 4},
    {"F6_E2M3", "", 6},
    {"F6_E3M2", "", 6},
    {"I16", "", 16},
    {"U16", "", 16},
    {"I32", "", 32},
    {"U32", "", 32},
    {"F64", "", 64},
    {"I64", "", 64},
    {"U64", "", 64},
    {"C64", "", 64},
    {"F8_E4M3FNUZ", "", 8},
    {"F8_E5M2FNUZ", "", 8},
    {"F8_E3M4", "", 8},
}};

}  // namespace

const DtypeInfo* FindSafetensorsDtype(std::string_view token) {
  for (const DtypeInfo& d : kDtypes) {
    if (d.safetensors == token) return &d;
  }
  return nullptr;
}

const DtypeInfo* FindManifestDtype(std::string_view token) {
  if (token.empty()) return nullptr;
  for (const DtypeInfo& d : kDtypes) {
    if (d.manifest == token) return &d;
  }
  return nullptr;
}

std::optional<std::uint64_t> ManifestByteSize(std::span<const std::uint64_t> shape, const DtypeInfo& dtype) {
  std::uint64_t size = 1;
  for (std::uint64_t dim : shape) {
    auto next = CheckedMul(size, dim);
    if (!next) return std::nullopt;
    size = *next;
  }
  return CheckedMul(size, dtype.bits / 8);
}

TensorSize SafetensorsByteSize(std::span<const std::uint64_t> shape, const DtypeInfo& dtype) {
  std::uint64_t elements = 1;
  for (std::uint64_t dim : shape) {
    auto next = CheckedMul(elements, dim);
    if (!next) return {0, SizeError::kOverflow};
    elements = *next;
  }
  auto bits = CheckedMul(elements, dtype.bits);
  if (!bits) return {0, SizeError::kOverflow};
  if (*bits % 8 != 0) return {0, SizeError::kMisaligned};
  return {*bits / 8, SizeError::kNone};
}

}  // namespace ckpt
