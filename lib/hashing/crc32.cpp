#include "lib/hashing/crc32.h"

#include <array>
#include <cstdio>
#include <cstring>

namespace ckpt {
namespace {

using Tables = std::array<std::array<std::uint32_t, 256>, 16>;

constexpr Tables MakeTables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t s = 1; s < 16; ++s) {
    for (std::uint32_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFU];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

}  // namespace

void Crc32::Update(std::span<const std::byte> bytes) {
  std::uint32_t c = state_;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  while (n >= 16) {
    std::uint32_t w[4];
    std::memcpy(w, p, 16);  // little-endian machines only (the project's targets)
    w[0] ^= c;
    c = kTables[15][w[0] & 0xFF] ^ kTables[14][(w[0] >> 8) & 0xFF] ^ kTables[13][(w[0] >> 16) & 0xFF] ^
        kTables[12][w[0] >> 24] ^ kTables[11][w[1] & 0xFF] ^ kTables[10][(w[1] >> 8) & 0xFF] ^
        kTables[9][(w[1] >> 16) & 0xFF] ^ kTables[8][w[1] >> 24] ^ kTables[7][w[2] & 0xFF] ^
        kTables[6][(w[2] >> 8) & 0xFF] ^ kTables[5][(w[2] >> 16) & 0xFF] ^ kTables[4][w[2] >> 24] ^
        kTables[3][w[3] & 0xFF] ^ kTables[2][(w[3] >> 8) & 0xFF] ^ kTables[1][(w[3] >> 16) & 0xFF] ^
        kTables[0][w[3] >> 24];
    p += 16;
    n -= 16;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  state_ = c;
}

std::string Crc32Hex(std::uint32_t crc) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08x", crc);
  return hex;
}

}  // namespace ckpt
