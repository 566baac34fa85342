#include "tests/support/msgpack_builder.h"

namespace ckpt::testing::mp {
namespace {

std::string BigEndian(std::uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xffU);
  return out;
}

// The head of a sized value: fixed form below `fix_limit`, else the 8/16/32-bit forms.
std::string Sized(std::uint64_t n, unsigned fix_base, std::uint64_t fix_limit, int first_code, bool has8) {
  if (n < fix_limit) return std::string(1, static_cast<char>(fix_base + n));
  if (has8 && n <= 0xff) return std::string(1, static_cast<char>(first_code)) + BigEndian(n, 1);
  const int code16 = first_code + (has8 ? 1 : 0);
  if (n <= 0xffff) return std::string(1, static_cast<char>(code16)) + BigEndian(n, 2);
  return std::string(1, static_cast<char>(code16 + 1)) + BigEndian(n, 4);
}

}  // namespace

std::string Map(std::uint64_t entries) { return Sized(entries, 0x80, 16, 0xde, false); }
std::string Array(std::uint64_t items) { return Sized(items, 0x90, 16, 0xdc, false); }
std::string Str(const std::string& text) { return Sized(text.size(), 0xa0, 32, 0xd9, true) + text; }
std::string Bin(const std::string& bytes) { return Sized(bytes.size(), 0, 0, 0xc4, true) + bytes; }

std::string Uint(std::uint64_t v) {
  if (v < 0x80) return std::string(1, static_cast<char>(v));
  if (v <= 0xff) return "\xcc" + BigEndian(v, 1);
  if (v <= 0xffff) return "\xcd" + BigEndian(v, 2);
  if (v <= 0xffffffff) return "\xce" + BigEndian(v, 4);
  return "\xcf" + BigEndian(v, 8);
}

std::string Ext(std::int8_t type, const std::string& payload) {
  const auto t = std::string(1, static_cast<char>(type));
  switch (payload.size()) {
    case 1:
      return "\xd4" + t + payload;
    case 2:
      return "\xd5" + t + payload;
    case 4:
      return "\xd6" + t + payload;
    case 8:
      return "\xd7" + t + payload;
    case 16:
      return "\xd8" + t + payload;
    default:
      break;
  }
  if (payload.size() <= 0xff) return "\xc7" + BigEndian(payload.size(), 1) + t + payload;
  if (payload.size() <= 0xffff) return "\xc8" + BigEndian(payload.size(), 2) + t + payload;
  return "\xc9" + BigEndian(payload.size(), 4) + t + payload;
}

std::string Ndarray(const std::vector<std::uint64_t>& shape, const std::string& dtype, const std::string& bytes,
                    std::int8_t type) {
  std::string packed = Array(3) + Array(shape.size());
  for (std::uint64_t d : shape) packed += Uint(d);
  packed += Str(dtype);
  packed += Bin(bytes);
  return Ext(type, packed);
}

std::string ZerosF32(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 4;
  for (std::uint64_t d : shape) n *= d;
  return Ndarray(shape, "float32", std::string(n, '\0'));
}

}  // namespace ckpt::testing::mp
