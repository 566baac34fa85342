// Small text helpers shared by the readers: hex, UTF-8, quoting for messages.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/// Lowercase hex of `bytes`.
std::string ToHex(std::span<const std::uint8_t> bytes);
/// The same, for bytes held in a string (a digest, a DER integer).
std::string ToHex(std::string_view bytes);

/// The bytes `hex` spells (two digits each, either case); nullopt for an odd length or a
/// non-digit.
std::optional<std::string> FromHex(std::string_view hex);

/// True when `text` is exactly 64 lowercase hexadecimal characters.
bool IsLowerHex64(std::string_view text);

/// Lower-cases `text` in place; true when it is min_digits to max_digits hex digits.
bool NormalizeHex(std::string& text, std::size_t min_digits, std::size_t max_digits);

/// What Python's one-character string escape `\c` stands for (\\ \' \" \a \b \f \n \r \t
/// \v), or nullopt when `c` starts no such escape: CPython's string-literal decoders share it.
inline std::optional<char> PythonSimpleEscape(char c) {
  switch (c) {
    case '\\':
    case '\'':
    case '"':
      return c;
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    default:
      return std::nullopt;
  }
}

/// The value of hex digit `c` (either case), or -1 when it is none.
inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The length of the well-formed UTF-8 sequence at text[i] (no surrogates, no overlong
/// forms), writing its code point to `cp`; 0 when the bytes there are not one.
std::size_t DecodeUtf8(std::string_view text, std::size_t i, std::uint32_t& cp);

/// Appends code point `cp` as UTF-8 (four bytes from U+10000 up, as CPython's decoders
/// with 'surrogatepass' would write it; nothing is checked).
void AppendUtf8(std::string& out, std::uint32_t cp);

/// `text` with ASCII letters lower-cased (other bytes as they are): names compared as miniz
/// compares them.
std::string AsciiLower(std::string_view text);

/// "1 byte", "3 bytes".
std::string Plural(std::uint64_t n, std::string_view word);

/// Offset of the first byte that is not part of well-formed UTF-8 (no overlong forms,
/// no surrogates, nothing above U+10FFFF), or nullopt when all of `text` is valid.
std::optional<std::size_t> FindInvalidUtf8(std::string_view text);

/// True when valid UTF-8 `text` holds a Unicode category Cc character (U+0000-U+001F,
/// U+007F-U+009F).
bool HasControlCharacter(std::string_view text);

/// True for a byte that begins a UTF-8 code point (not a continuation byte): what counts
/// one column when text is padded or wrapped.
inline bool StartsCodePoint(char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }

/// True for the code points that reorder or hide text on a terminal or a web page:
/// bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the
/// line and paragraph separators U+2028, U+2029.
bool IsBidiOrSeparator(std::uint32_t code_point);

/// `text` made safe to print where people read it (text reports, DOT and Mermaid labels,
/// SARIF messages): every control character (C0, DEL, C1), bidi control and separator is
/// written as \uXXXX and every byte that is not UTF-8 as \xNN, so input can neither forge
/// lines, colours or PASS verdicts nor reorder what is shown. Other text passes unchanged.
std::string EscapeForDisplay(std::string_view text);

/// `text` with & < > " ' written as the character references HTML and XML both read
/// (&amp; &lt; &gt; &quot; &apos;). Apply EscapeForDisplay first for text from input.
std::string EscapeMarkup(std::string_view text);

/// `text` with each byte that is not part of well-formed UTF-8 written as the four
/// characters \xNN: always valid UTF-8, for JSON strings.
std::string ToValidUtf8(std::string_view text);
/// Input text in a report record: valid UTF-8 and at most 512 bytes ("..." after), so a
/// hostile value cannot flood a report.
std::string BoundedText(std::string_view text);
/// "2025-10-07T15:33:48Z": `seconds` since the epoch as RFC 3339 UTC, to the second (the
/// number itself when it is no representable time).
std::string UtcTime(std::int64_t seconds);

/// `text` quoted for a one-line message: control characters and invalid bytes escaped,
/// long values shortened with an ellipsis so a hostile name cannot flood a report.
std::string QuoteForMessage(std::string_view text, std::size_t max_chars = 120);

/// The name among `names` nearest to `wrong` (edit distance, '-' and '_' alike), when it is
/// close enough to be a typo of it: for "did you mean ..." in usage errors.
std::optional<std::string> NearestName(std::string_view wrong, const std::vector<std::string>& names);
/// "; did you mean 'PREFIXname'?" for NearestName's answer, else "": the tail of a usage error.
std::string DidYouMean(std::string_view wrong, const std::vector<std::string>& names, std::string_view prefix = {});

}  // namespace ckpt
