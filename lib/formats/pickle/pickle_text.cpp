#include "lib/formats/pickle/pickle_text.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"

namespace ckpt::pickle {

// An integer as Python's int() reads the lines of INT and LONG (base 0: 0x, 0o, 0b
// prefixes; a decimal number has no leading zero unless it is all zeros) and of GET and PUT
// (base 10). Whitespace around it and single underscores between digits are allowed.

std::string Escaped(std::string_view text, char quote) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Quoted(std::string_view text, std::size_t limit) {
  const bool cut = text.size() > limit;
  return "'" + Escaped(text.substr(0, limit), '\'') + (cut ? "...'" : "'");
}

bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += extra + 1;  // surrogates pass: CPython decodes with 'surrogatepass'
  }
  return true;
}

// The STRING opcode's argument: a quoted repr, escapes decoded (latin-1 bytes as code points).
std::optional<std::string> DecodeStringLiteral(std::string_view line) {
  if (line.size() < 2 || (line.front() != '\'' && line.front() != '"') || line.back() != line.front()) {
    return std::nullopt;  // CPython: "the STRING opcode argument must be quoted"
  }
  line = line.substr(1, line.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c != '\\' || i + 1 == line.size()) {
      AppendUtf8(out, static_cast<unsigned char>(c));
      continue;
    }
    c = line[++i];
    if (const std::optional<char> simple = PythonSimpleEscape(c)) {
      out += *simple;
      continue;
    }
    switch (c) {
      case '\n':
        break;
      case 'x': {
        if (i + 2 >= line.size()) return std::nullopt;
        const int hi = HexDigit(line[i + 1]);
        const int lo = HexDigit(line[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        AppendUtf8(out, static_cast<std::uint32_t>(hi * 16 + lo));
        i += 2;
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          auto v = static_cast<std::uint32_t>(c - '0');
          for (int k = 0; k < 2 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7'; ++k) {
            v = v * 8 + static_cast<std::uint32_t>(line[++i] - '0');
          }
          AppendUtf8(out, v & 0xFF);
        } else {
          out += '\\';
          AppendUtf8(out, static_cast<unsigned char>(c));
        }
    }
  }
  return out;
}

// The UNICODE opcode's argument: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes latin-1).
std::optional<std::string> DecodeRawUnicodeEscape(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == 'u' || line[i + 1] == 'U')) {
      const std::size_t digits = line[i + 1] == 'u' ? 4 : 8;
      if (i + 1 + digits >= line.size()) return std::nullopt;
      std::uint32_t cp = 0;
      for (std::size_t k = 0; k < digits; ++k) {
        const int d = HexDigit(line[i + 2 + k]);
        if (d < 0) return std::nullopt;
        cp = cp * 16 + static_cast<std::uint32_t>(d);
      }
      if (cp > 0x10FFFF) return std::nullopt;
      AppendUtf8(out, cp);
      i += 1 + digits;
      continue;
    }
    AppendUtf8(out, static_cast<unsigned char>(line[i]));
  }
  return out;
}

ParsedInt ParseInt(std::string_view text, bool base_zero) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  ParsedInt out;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  unsigned base = 10;
  if (base_zero && text.size() >= 2 && text[0] == '0') {
    const char p = static_cast<char>(text[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    if (base != 10) {
      text.remove_prefix(2);
      if (!text.empty() && text.front() == '_') text.remove_prefix(1);  // 0x_1f
    } else if (text.find_first_not_of("0_") != std::string_view::npos) {
      return out;  // int("010", 0) is an error
    }
  }
  if (text.empty() || text.front() == '_' || text.back() == '_' || text.find("__") != std::string_view::npos) {
    return out;
  }
  std::uint64_t v = 0;
  for (char c : text) {
    if (c == '_') continue;
    const int d = HexDigit(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) return out;
    auto next = CheckedMul(v, base);
    next = next ? CheckedAdd(*next, static_cast<std::uint64_t>(d)) : std::nullopt;
    if (!next) out.big = true;
    if (!out.big) v = *next;
  }
  out.ok = true;
  const std::uint64_t limit = static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1U : 0U);
  if (v > limit) out.big = true;
  if (!out.big) out.value = negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return out;
}

bool IsFloatLine(std::string_view line) {
  return !line.empty() && line.find_first_not_of("0123456789+-.eEinfatyINFATY") == std::string_view::npos;
}

// A module or attribute path: dotted identifiers (ASCII, or UTF-8 beyond it).
bool IsNameLine(std::string_view line) {
  if (line.empty()) return false;
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) != 0 || c == '_' || c == '.' || u >= 0x80)) return false;
  }
  return true;
}

// Whether CPython accepts `t` as a text-line argument of this syntax.
bool LineParses(LineSyntax syntax, const std::string& t) {
  switch (syntax) {
    case LineSyntax::kInt:
      return t == "00" || t == "01" || ParseInt(t, true).ok;
    case LineSyntax::kLong:
      return ParseInt(t.ends_with('L') ? t.substr(0, t.size() - 1) : t, true).ok;
    case LineSyntax::kMemoKey:
      return ParseInt(t, false).ok;
    case LineSyntax::kFloat:
      return IsFloatLine(t);
    case LineSyntax::kQuoted:
      return t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front();
    case LineSyntax::kName:
      return IsNameLine(t);
    case LineSyntax::kAny:
      return true;
    case LineSyntax::kNone:
      break;
  }
  return false;
}

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::array<char, 64> buf{};
  const auto written = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::scientific);
  const std::string_view text(buf.data(), static_cast<std::size_t>(written.ptr - buf.data()));
  const bool negative = text.front() == '-';
  const std::size_t e = text.find('e');
  std::string digits;
  for (const char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(), exponent);
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else if (static_cast<std::size_t>(exponent) + 1 >= digits.size()) {
      out += digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
             digits.substr(static_cast<std::size_t>(exponent) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  out += std::string(exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
  return out;
}

}  // namespace ckpt::pickle
