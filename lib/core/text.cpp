#include "lib/core/text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace ckpt {

std::string ToHex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

std::string ToHex(std::string_view bytes) {
  return ToHex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = HexDigit(hex[i]);
    const int low = HexDigit(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

bool IsLowerHex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool NormalizeHex(std::string& text, std::size_t min_digits, std::size_t max_digits) {
  if (text.size() < min_digits || text.size() > max_digits) return false;
  for (char& c : text) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string Plural(std::uint64_t n, std::string_view word) {
  const bool sibilant = !word.empty() && (word.back() == 's' || word.back() == 'x');  // alias -> aliases
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : sibilant ? "es" : "s");
}

namespace {

// Unicode category Cc: C0, DEL and C1.
bool IsControl(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

}  // namespace

std::size_t DecodeUtf8(std::string_view text, std::size_t i, std::uint32_t& cp) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  std::uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len = 0;
  std::uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < len) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    std::uint8_t b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::optional<std::size_t> FindInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // ASCII, most of every JSON header and configuration, is skipped eight bytes at a time.
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    std::uint64_t word = 0;
    while (text.size() - i >= sizeof word) {
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & kHighBits) != 0) break;
      i += sizeof word;
    }
    if (i == text.size()) break;
    std::uint32_t cp = 0;
    std::size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

bool HasControlCharacter(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t cp = 0;
    std::size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) return false;  // callers validate UTF-8 first
    if (IsControl(cp)) return true;
    i += len;
  }
  return false;
}

bool IsBidiOrSeparator(std::uint32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

namespace {

void AppendByteEscape(std::string& out, char byte) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "\\x%02x", static_cast<unsigned>(static_cast<std::uint8_t>(byte)));
  out += buf.data();
}

void AppendCodePointEscape(std::string& out, std::uint32_t cp) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(cp));
  out += buf.data();
}

// Copies `text`, writing bytes that are not UTF-8 as \xNN and, when `for_display`, control
// characters, bidi controls and separators as \uXXXX.
std::string Escape(std::string_view text, bool for_display) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t cp = 0;
    std::size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) {
      AppendByteEscape(out, text[i]);
      len = 1;
    } else if (for_display && (IsControl(cp) || IsBidiOrSeparator(cp))) {
      AppendCodePointEscape(out, cp);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string EscapeForDisplay(std::string_view text) { return Escape(text, true); }

std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string ToValidUtf8(std::string_view text) {
  if (!FindInvalidUtf8(text)) return std::string(text);
  return Escape(text, false);
}

std::string QuoteForMessage(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  std::size_t shown = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (shown >= max_chars) {
      out += "...";
      break;
    }
    std::uint32_t cp = 0;
    std::size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) {
      AppendByteEscape(out, text[i]);
      len = 1;
    } else if (cp == '\'' || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (IsControl(cp) || IsBidiOrSeparator(cp)) {
      AppendCodePointEscape(out, cp);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
    ++shown;
  }
  out += "'";
  return out;
}

std::string DidYouMean(std::string_view wrong, const std::vector<std::string>& names, std::string_view prefix) {
  const auto near = NearestName(wrong, names);
  return near ? "; did you mean '" + std::string(prefix) + *near + "'?" : std::string();
}

std::optional<std::string> NearestName(std::string_view wrong, const std::vector<std::string>& names) {
  auto normal = [](std::string_view text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
  };
  const std::string a = normal(wrong);
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& name : names) {
    const std::string b = normal(name);
    // Levenshtein distance, one row at a time.
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    if (!best || row[b.size()] < best_distance) {
      best = name;
      best_distance = row[b.size()];
    }
  }
  // A typo: a few edits, and fewer than a third of the name (a plural, a dash, a swap).
  if (!best || best_distance > std::max<std::size_t>(2, a.size() / 3)) return std::nullopt;
  return best;
}

std::string BoundedText(std::string_view text) {
  constexpr std::size_t kMax = 512;
  return ToValidUtf8(text.size() > kMax ? std::string(text.substr(0, kMax)) + "..." : std::string(text));
}

std::string UtcTime(std::int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::to_string(seconds);
  char text[32];
  return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm));
}

}  // namespace ckpt
