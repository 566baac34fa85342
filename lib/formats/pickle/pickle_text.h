// Text as the pickle analyser reads and shows it (CPython's _pickle.c load_string,
// load_unicode, load_int and its repr): the decoders of protocol 0's text arguments and the
// Python-literal rendering of names and strings in findings. Internal to lib/formats/pickle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/formats/pickle/pickle_opcodes.h"

namespace ckpt::pickle {

/// `text` with backslashes, `quote` and non-printable bytes escaped as Python writes them.
std::string Escaped(std::string_view text, char quote);
/// `text` as a quoted Python literal, cut after `limit` bytes.
std::string Quoted(std::string_view text, std::size_t limit = 80);
/// repr(float) as Python writes it: the shortest digits that read back to the same double,
/// positional when the decimal exponent is in [-4, 16) (".0" when integral), else d.ddde+XX;
/// inf, -inf, nan. A report shows 5e-05, as Python does, not 5.0000000000000002e-05.
std::string PythonFloatRepr(double value);
bool ValidUtf8(std::string_view s);
/// STRING's argument ('...' or "..." with Python escapes), as pickle's load_string decodes it.
std::optional<std::string> DecodeStringLiteral(std::string_view line);
/// UNICODE's argument (raw-unicode-escape) as UTF-8.
std::optional<std::string> DecodeRawUnicodeEscape(std::string_view line);

struct ParsedInt {
  bool ok = false;
  bool big = false;  // past int64
  std::int64_t value = 0;
};
/// An integer as Python's int() reads INT, LONG (base 0) and GET/PUT (base 10) lines.
ParsedInt ParseInt(std::string_view text, bool base_zero);
bool IsFloatLine(std::string_view line);
/// A module or attribute path: dotted identifiers (ASCII, or UTF-8 beyond it).
bool IsNameLine(std::string_view line);
/// Whether CPython accepts `t` as a text-line argument of this syntax.
bool LineParses(LineSyntax syntax, const std::string& t);

}  // namespace ckpt::pickle
