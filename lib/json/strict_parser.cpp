#include "lib/json/strict_parser.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "lib/core/text.h"

namespace ckpt::json {
namespace {

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One open array or object while parsing.
struct Frame {
  Value value;
  std::string pending_key;  // objects: key read, value not yet
  std::uint64_t pending_key_offset = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : text_(text), options_(options) {}

  ParseResult Run() {
    if (auto bad = FindInvalidUtf8(text_)) return ParseError{"invalid UTF-8", *bad};
    SkipWhitespace();
    Document doc;
    doc.value_begin = pos_;
    if (!ParseValue(doc.root)) return std::move(error_);
    doc.value_end = pos_;
    SkipWhitespace();
    if (pos_ != text_.size()) return ParseError{"unexpected data after the JSON value", pos_};
    doc.duplicates = std::move(duplicates_);
    return doc;
  }

 private:
  bool Fail(std::string message, std::size_t at) {
    error_ = ParseError{std::move(message), at};
    return false;
  }

  void SkipWhitespace() {
    while (pos_ < text_.size() && IsWhitespace(text_[pos_])) ++pos_;
  }

  // Parses one complete value (scalars directly, containers with an explicit stack).
  bool ParseValue(Value& out) {
    std::vector<Frame> stack;
    Value scalar;
    for (;;) {
      SkipWhitespace();
      if (pos_ >= text_.size()) return Fail("unexpected end of input, expected a value", pos_);
      char c = text_[pos_];
      if (c == '{' || c == '[') {
        if (stack.size() >= options_.max_depth) {
          return Fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels", pos_);
        }
        Frame frame;
        frame.value.type = (c == '{') ? Type::kObject : Type::kArray;
        frame.value.offset = pos_;
        ++pos_;
        SkipWhitespace();
        char close = (c == '{') ? '}' : ']';
        if (pos_ < text_.size() && text_[pos_] == close) {
          ++pos_;
          scalar = std::move(frame.value);  // empty container: a finished value
        } else {
          stack.push_back(std::move(frame));
          if (c == '{' && !ParseKey(stack.back())) return false;
          continue;  // parse the first element
        }
      } else if (!ParseScalar(scalar)) {
        return false;
      }
      // `scalar` holds a finished value: attach it and close as many containers as end here.
      for (;;) {
        if (stack.empty()) {
          out = std::move(scalar);
          return true;
        }
        Frame& top = stack.back();
        Attach(stack, std::move(scalar));
        SkipWhitespace();
        if (pos_ >= text_.size()) return Fail("unexpected end of input inside a container", pos_);
        char next = text_[pos_];
        if (next == ',') {
          ++pos_;
          if (top.value.type == Type::kObject) {
            SkipWhitespace();
            if (!ParseKey(top)) return false;
          }
          break;  // parse the next value
        }
        char close = (top.value.type == Type::kObject) ? '}' : ']';
        if (next != close) {
          return Fail(std::string("expected ',' or '") + close + "'", pos_);
        }
        ++pos_;
        if (top.value.type == Type::kObject) FindDuplicates(stack);
        scalar = std::move(top.value);
        stack.pop_back();
      }
    }
  }

  void Attach(std::vector<Frame>& stack, Value&& value) {
    Frame& top = stack.back();
    if (top.value.type == Type::kArray) {
      top.value.items.push_back(std::move(value));
    } else {
      top.value.members.push_back(Member{std::move(top.pending_key), top.pending_key_offset, std::move(value)});
      top.pending_key.clear();
    }
  }

  bool ParseKey(Frame& frame) {
    SkipWhitespace();
    if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a string key", pos_);
    frame.pending_key_offset = pos_;
    if (!ParseString(frame.pending_key)) return false;
    SkipWhitespace();
    if (pos_ >= text_.size() || text_[pos_] != ':') return Fail("expected ':' after an object key", pos_);
    ++pos_;
    return true;
  }

  // Sorting indices keeps duplicate detection O(n log n) whatever the keys are.
  void FindDuplicates(const std::vector<Frame>& stack) {
    const auto& members = stack.back().value.members;
    if (members.size() < 2) return;
    std::vector<std::size_t> order(members.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return members[a].key < members[b].key; });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const Member& first = members[order[i - 1]];
      const Member& second = members[order[i]];
      if (first.key == second.key) {
        duplicates_.push_back(DuplicateKey{PointerOf(stack), second.key, first.key_offset, second.key_offset});
      }
    }
  }

  static std::string PointerOf(const std::vector<Frame>& stack) {
    std::string pointer;
    for (std::size_t i = 0; i + 1 < stack.size(); ++i) {
      const Value& parent = stack[i].value;
      pointer += '/';
      if (parent.type == Type::kArray) {
        pointer += std::to_string(parent.items.size());
      } else {
        pointer += EscapePointerToken(stack[i].pending_key);
      }
    }
    return pointer;
  }

  bool ParseScalar(Value& out) {
    out = Value{};
    out.offset = pos_;
    char c = text_[pos_];
    if (c == '"') {
      out.type = Type::kString;
      return ParseString(out.text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      out.type = Type::kNumber;
      return ParseNumber(out.text);
    }
    if (Literal("true")) {
      out.type = Type::kBool;
      out.boolean = true;
      return true;
    }
    if (Literal("false")) {
      out.type = Type::kBool;
      return true;
    }
    if (Literal("null")) {
      out.type = Type::kNull;
      return true;
    }
    return Fail("unexpected character, expected a value", pos_);
  }

  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool ParseNumber(std::string& raw) {
    std::size_t start = pos_;
    auto digits = [&] {
      std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ >= text_.size()) return Fail("incomplete number", pos_);
    if (text_[pos_] == '0') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        return Fail("leading zeros are not allowed in numbers", start);
      }
    } else if (digits() == 0) {
      return Fail("invalid number", start);
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return Fail("a fraction needs digits", pos_);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Fail("an exponent needs digits", pos_);
    }
    raw.assign(text_.substr(start, pos_ - start));
    return true;
  }

  std::optional<std::uint32_t> Hex4() {
    if (text_.size() - pos_ < 4) return std::nullopt;
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_ + static_cast<std::size_t>(i)];
      std::uint32_t digit = 0;
      if (h >= '0' && h <= '9') {
        digit = static_cast<std::uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        digit = static_cast<std::uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        digit = static_cast<std::uint32_t>(h - 'A' + 10);
      } else {
        return std::nullopt;
      }
      value = value * 16 + digit;
    }
    pos_ += 4;
    return value;
  }

  static void AppendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool ParseString(std::string& out) {
    std::size_t start = pos_;
    ++pos_;  // opening quote
    out.clear();
    for (;;) {
      if (pos_ >= text_.size()) return Fail("unterminated string", start);
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail("unescaped control character in a string", pos_);
      }
      if (c != '\\') {
        // Copy the run of plain bytes at once (UTF-8 was validated up front).
        std::size_t run = pos_;
        while (run < text_.size() && text_[run] != '"' && text_[run] != '\\' &&
               static_cast<unsigned char>(text_[run]) >= 0x20) {
          ++run;
        }
        out.append(text_.substr(pos_, run - pos_));
        pos_ = run;
        continue;
      }
      std::size_t escape_at = pos_;
      ++pos_;
      if (pos_ >= text_.size()) return Fail("unterminated escape", escape_at);
      char e = text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          auto unit = Hex4();
          if (!unit) return Fail("invalid \\u escape", escape_at);
          std::uint32_t cp = *unit;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("lone low surrogate in \\u escape", escape_at);
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") return Fail("lone high surrogate in \\u escape", escape_at);
            pos_ += 2;
            auto low = Hex4();
            if (!low || *low < 0xDC00 || *low > 0xDFFF) {
              return Fail("high surrogate not followed by a low surrogate", escape_at);
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (*low - 0xDC00);
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return Fail("invalid escape sequence", escape_at);
      }
    }
  }

  std::string_view text_;
  ParseOptions options_;
  std::size_t pos_ = 0;
  ParseError error_;
  std::vector<DuplicateKey> duplicates_;
};

}  // namespace

ParseResult ParseStrict(std::string_view text, const ParseOptions& options) {
  return Parser(text, options).Run();
}

}  // namespace ckpt::json
