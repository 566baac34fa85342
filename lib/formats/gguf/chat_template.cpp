#include "lib/formats/gguf/chat_template.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

#include "lib/core/text.h"

namespace ckpt {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A quoted literal from `text[at]` (the quote): its decoded value; `at` moves past it.
std::string ReadLiteral(std::string_view text, std::size_t& at) {
  const char quote = text[at++];
  std::string out;
  while (at < text.size() && text[at] != quote) {
    if (text[at] != '\\' || at + 1 >= text.size()) {
      out += text[at++];
      continue;
    }
    const char e = text[at + 1];
    at += 2;
    auto hex = [&](std::size_t digits) {
      std::uint32_t cp = 0;
      std::size_t n = 0;
      for (; n < digits && at < text.size() && HexDigit(text[at]) >= 0; ++n, ++at) {
        cp = cp * 16 + static_cast<std::uint32_t>(HexDigit(text[at]));
      }
      AppendUtf8(out, cp);
    };
    if (e == 'x') {
      hex(2);
    } else if (e == 'u') {
      hex(4);
    } else if (e == 'U') {
      hex(8);
    } else if (e >= '0' && e <= '7') {
      std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
      for (std::size_t n = 1; n < 3 && at < text.size() && text[at] >= '0' && text[at] <= '7'; ++n, ++at) {
        cp = cp * 8 + static_cast<std::uint32_t>(text[at] - '0');
      }
      AppendUtf8(out, cp);
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else {
      out += e;  // \\, \', \" and the rest stand for themselves
    }
  }
  if (at < text.size()) ++at;  // the closing quote
  return out;
}

// Whether `word` occurs in `text` with no letter or digit on either side ("important" is
// not `import`); a word ending in '.' (os.) needs a boundary on the left only.
bool HasWord(std::string_view text, std::string_view word) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !alnum(text[at - 1]);
    const std::size_t end = at + word.size();
    const bool right = word.back() == '.' || end == text.size() || !alnum(text[end]);
    if (left && right) return true;
  }
  return false;
}

// The first dunder name (`__` + letters + `__`) in `text`.
std::optional<std::string> FirstDunder(std::string_view text) {
  for (std::size_t at = text.find("__"); at != std::string_view::npos; at = text.find("__", at + 1)) {
    std::size_t end = at + 2;
    while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])) != 0) ++end;
    if (end > at + 2 && text.substr(end, 2) == "__") return std::string(text.substr(at, end + 2 - at));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> FindChatTemplateHazard(std::string_view text) {
  // The pieces Jinja would evaluate: identifiers and literals (adjacent ones joined by ~ or +).
  std::vector<std::string> pieces;
  bool attr_filter = false;
  bool joining = false;  // a ~ or + follows the last literal
  bool last_was_literal = false;
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    if (c == '\'' || c == '"') {
      std::string value = ReadLiteral(text, at);
      if (joining && last_was_literal && !pieces.empty()) {
        pieces.back() += value;
      } else {
        pieces.push_back(std::move(value));
      }
      last_was_literal = true;
      joining = false;
      continue;
    }
    if (IsSpace(c)) {
      ++at;
      continue;
    }
    if ((c == '~' || c == '+') && last_was_literal) {
      joining = true;
      ++at;
      continue;
    }
    if (c == '|') {
      std::size_t next = at + 1;
      while (next < text.size() && IsSpace(text[next])) ++next;
      if (text.substr(next, 4) == "attr" && (next + 4 == text.size() || !IsIdentChar(text[next + 4]))) {
        attr_filter = true;
      }
    }
    if (IsIdentStart(c)) {
      std::size_t end = at;
      while (end < text.size() && IsIdentChar(text[end])) ++end;
      pieces.emplace_back(text.substr(at, end - at));
      at = end;
    } else {
      ++at;
    }
    last_was_literal = false;
    joining = false;
  }
  // The internals sandbox escapes reach first, then any other dunder name.
  for (std::string_view known : {"__class__", "__globals__", "__subclasses__", "__builtins__"}) {
    for (const std::string& piece : pieces) {
      if (piece.find(known) != std::string::npos) return std::string(known);
    }
  }
  for (const std::string& piece : pieces) {
    if (auto dunder = FirstDunder(piece)) return dunder;
  }
  if (attr_filter) return std::string("the attr filter");
  for (std::string_view word : {"import", "os.", "subprocess", "popen", "eval", "exec"}) {
    if (HasWord(text, word)) return std::string(word);
    for (const std::string& piece : pieces) {
      if (HasWord(piece, word)) return std::string(word);
    }
  }
  return std::nullopt;
}

}  // namespace ckpt
