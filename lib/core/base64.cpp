#include "lib/core/base64.h"

#include <array>
#include <cstdint>

namespace ckpt {
namespace {

constexpr std::string_view kStandard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 0-63 for a digit of the standard alphabet, 64 + value for '-' and '_' (URL-safe), 255 else.
constexpr std::array<std::uint8_t, 256> MakeDecodeTable() {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = 255;
  for (std::size_t i = 0; i < kStandard.size(); ++i) {
    table[static_cast<unsigned char>(kStandard[i])] = static_cast<std::uint8_t>(i);
  }
  table['-'] = 64 + 62;
  table['_'] = 64 + 63;
  return table;
}
constexpr auto kDecode = MakeDecodeTable();

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kStandard[(v >> shift) & 63]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out.push_back(kStandard[(v >> 18) & 63]);
    out.push_back(kStandard[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kStandard[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text, Base64Alphabet alphabet) {
  const bool lenient = alphabet == Base64Alphabet::kStandardOrUrl;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  const std::string_view digits = text.substr(0, text.size() - padding);
  if (padding > 0 || !lenient) {
    if (text.size() % 4 != 0) return std::nullopt;
  }
  if (digits.size() % 4 == 1) return std::nullopt;
  if (padding > 0 && (digits.size() + padding) % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(digits.size() / 4 * 3 + 2);
  bool saw_standard = false;
  bool saw_url = false;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : digits) {
    std::uint8_t v = kDecode[static_cast<unsigned char>(c)];
    if (v == 255) return std::nullopt;
    if (v >= 64) {
      if (!lenient) return std::nullopt;
      saw_url = true;
      v -= 64;
    } else if (c == '+' || c == '/') {
      saw_standard = true;
    }
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (saw_standard && saw_url) return std::nullopt;
  if (bits > 0 && (acc & ((1U << bits) - 1)) != 0) return std::nullopt;  // non-canonical tail
  return out;
}

}  // namespace ckpt
