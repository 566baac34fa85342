#include "lib/model/dtype.h"

#include <array>

#include "lib/core/checked_math.h"

namespace ckpt {
namespace {

constexpr std::array<DtypeInfo, 23> kDtypes{{
    {Dtype::kF32, "F32", "float32", 32},
    {Dtype::kBf16, "BF16", "bfloat16", 16},
    {Dtype::kF16, "F16", "float16", 16},
    {Dtype::kBool, "BOOL", "", 8},
    {Dtype::kU8, "U8", "", 8},
    {Dtype::kI8, "I8", "", 8},
    {Dtype::kF8E5m2, "F8_E5M2", "", 8},
    {Dtype::kF8E4m3, "F8_E4M3", "", 8},
    {Dtype::kF8E8m0, "F8_E8M0", "", 8},
    {Dtype::kF4, "F4", "", 4},
    {Dtype::kF6E2m3, "F6_E2M3", "", 6},
    {Dtype::kF6E3m2, "F6_E3M2", "", 6},
    {Dtype::kI16, "I16", "", 16},
    {Dtype::kU16, "U16", "", 16},
    {Dtype::kI32, "I32", "", 32},
    {Dtype::kU32, "U32", "", 32},
    {Dtype::kF64, "F64", "", 64},
    {Dtype::kI64, "I64", "", 64},
    {Dtype::kU64, "U64", "", 64},
    {Dtype::kC64, "C64", "", 64},
    {Dtype::kF8E4m3fnuz, "F8_E4M3FNUZ", "", 8},
    {Dtype::kF8E5m2fnuz, "F8_E5M2FNUZ", "", 8},
    {Dtype::kF8E3m4, "F8_E3M4", "", 8},
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

const NumpyDescr* FindNumpyDescr(std::string_view code) {
  static constexpr std::array<NumpyDescr, 14> kDescrs{{{"f4", "F32", 4},
                                                       {"f8", "F64", 8},
                                                       {"f2", "F16", 2},
                                                       {"i8", "I64", 8},
                                                       {"i4", "I32", 4},
                                                       {"i2", "I16", 2},
                                                       {"i1", "I8", 1},
                                                       {"u1", "U8", 1},
                                                       {"u2", "U16", 2},
                                                       {"u4", "U32", 4},
                                                       {"u8", "U64", 8},
                                                       {"b1", "BOOL", 1},
                                                       {"c8", "C64", 8},
                                                       {"c16", "", 16}}};
  for (const NumpyDescr& d : kDescrs) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

}  // namespace ckpt
