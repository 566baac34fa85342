#include "lib/metadata/jinja_syntax.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/text.h"

namespace ckpt::jinja {
namespace {

enum class TokenType : std::uint8_t {
  kData,
  kVariableBegin,
  kVariableEnd,
  kBlockBegin,
  kBlockEnd,
  kName,
  kString,
  kInteger,
  kFloat,
  kOperator,
  kEof,
};

struct Token {
  TokenType type = TokenType::kEof;
  std::string value;
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

// What a token is called in an error message, as Jinja names it.
std::string Describe(const Token& token) {
  switch (token.type) {
    case TokenType::kData:
      return "'template data'";
    case TokenType::kVariableBegin:
      return "'begin of print statement'";
    case TokenType::kVariableEnd:
      return "'end of print statement'";
    case TokenType::kBlockBegin:
      return "'begin of statement block'";
    case TokenType::kBlockEnd:
      return "'end of statement block'";
    case TokenType::kEof:
      return "'end of template'";
    case TokenType::kString:
      return "'string'";
    default:
      return QuoteForMessage(token.value, 40);
  }
}

bool IsNameStart(unsigned char c) { return (std::isalpha(c) != 0) || c == '_' || c >= 0x80; }
bool IsNameChar(unsigned char c) { return (std::isalnum(c) != 0) || c == '_' || c >= 0x80; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Jinja's operators, longest first within each leading character.
constexpr std::array<std::string_view, 25> kOperators = {
    "//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[",
    "]",  "(",  ")",  "{",  "}",  ">",  "<", "=", ".", ":", "|", ",",
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The tokens of the whole template, or the first error.
  std::optional<SyntaxError> Run(std::vector<Token>& out) {
    out_ = &out;
    while (pos_ < text_.size() && !error_) {
      const std::size_t open = FindTagStart(pos_);
      if (open > pos_) Emit(TokenType::kData, std::string(text_.substr(pos_, open - pos_)), line_, column_);
      Advance(open);
      if (pos_ >= text_.size()) break;
      const char kind = text_[pos_ + 1];
      if (kind == '#') {
        Comment();
      } else if (kind == '%') {
        if (!Raw()) Tag(TokenType::kBlockBegin);
      } else {
        Tag(TokenType::kVariableBegin);
      }
    }
    if (!error_) Emit(TokenType::kEof, "", line_, column_);
    return error_;
  }

 private:
  std::size_t FindTagStart(std::size_t from) const {
    for (std::size_t at = text_.find('{', from); at != std::string_view::npos; at = text_.find('{', at + 1)) {
      if (at + 1 < text_.size() && (text_[at + 1] == '{' || text_[at + 1] == '%' || text_[at + 1] == '#')) return at;
    }
    return text_.size();
  }

  // Moves to `to`, counting lines and code points.
  void Advance(std::size_t to) {
    for (; pos_ < to; ++pos_) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else if ((c & 0xC0U) != 0x80U) {
        ++column_;
      }
    }
  }

  void Emit(TokenType type, std::string value, std::uint32_t line, std::uint32_t column) {
    out_->push_back(Token{type, std::move(value), line, column});
  }

  void Fail(std::string message, std::uint32_t line, std::uint32_t column) {
    if (!error_) error_ = SyntaxError{line, column, std::move(message)};
  }

  bool At(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  void Comment() {
    const std::uint32_t line = line_;
    const std::uint32_t column = column_;
    if (pos_ + 2 == text_.size()) {  // Jinja reads a "{#" that ends the template as an empty comment
      Advance(text_.size());
      return;
    }
    const std::size_t end = text_.find("#}", pos_ + 2);
    if (end == std::string_view::npos) {
      Fail("Missing end of comment tag", line, column);
      return;
    }
    Advance(end + 2);
  }

  // `{% raw %}`: the text up to `{% endraw %}` is data. False when the tag is not raw.
  bool Raw() {
    std::size_t at = pos_ + 2;
    const auto tag_named = [&](std::size_t from, std::string_view name) -> std::size_t {
      std::size_t i = from;
      if (i < text_.size() && (text_[i] == '-' || text_[i] == '+')) ++i;
      while (i < text_.size() && IsSpace(text_[i])) ++i;
      if (text_.substr(i, name.size()) != name) return std::string_view::npos;
      i += name.size();
      while (i < text_.size() && IsSpace(text_[i])) ++i;
      if (i < text_.size() && (text_[i] == '-' || text_[i] == '+')) ++i;
      if (text_.substr(i, 2) != "%}") return std::string_view::npos;
      return i + 2;
    };
    const std::size_t body = tag_named(at, "raw");
    if (body == std::string_view::npos) return false;
    if (body == text_.size()) {  // Jinja reads a raw tag that ends the template as an empty block
      Advance(body);
      return true;
    }
    const std::uint32_t line = line_;
    const std::uint32_t column = column_;
    for (at = text_.find("{%", body); at != std::string_view::npos; at = text_.find("{%", at + 1)) {
      if (const std::size_t end = tag_named(at + 2, "endraw"); end != std::string_view::npos) {
        Advance(body);
        if (at > body) Emit(TokenType::kData, std::string(text_.substr(body, at - body)), line_, column_);
        Advance(end);
        return true;
      }
    }
    Fail("Missing end of raw directive", line, column);
    Advance(text_.size());
    return true;
  }

  // The tokens of one `{{ ... }}` or `{% ... %}`.
  void Tag(TokenType begin) {
    Emit(begin, "", line_, column_);
    Advance(pos_ + 2);
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) Advance(pos_ + 1);
    const bool block = begin == TokenType::kBlockBegin;
    std::vector<char> open_brackets;
    while (!error_) {
      if (open_brackets.empty()) {
        if (block && (At("-%}") || At("+%}") || At("%}"))) {
          Emit(TokenType::kBlockEnd, "", line_, column_);
          Advance(pos_ + (At("%}") ? 2 : 3));
          return;
        }
        if (!block && (At("-}}") || At("}}"))) {
          Emit(TokenType::kVariableEnd, "", line_, column_);
          Advance(pos_ + (At("}}") ? 2 : 3));
          return;
        }
      }
      if (pos_ >= text_.size()) {
        Fail(block ? "Unexpected end of template: a statement is not closed with '%}'"
                   : "Unexpected end of template: a print statement is not closed with '}}'",
             line_, column_);
        return;
      }
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (IsSpace(static_cast<char>(c))) {
        Advance(pos_ + 1);
      } else if (std::isdigit(c) != 0) {
        Number();
      } else if (IsNameStart(c)) {
        std::size_t end = pos_ + 1;
        while (end < text_.size() && IsNameChar(static_cast<unsigned char>(text_[end]))) ++end;
        Emit(TokenType::kName, std::string(text_.substr(pos_, end - pos_)), line_, column_);
        Advance(end);
      } else if (c == '\'' || c == '"') {
        String();
      } else {
        Operator(open_brackets);
      }
    }
  }

  void Operator(std::vector<char>& open_brackets) {
    const auto op = std::find_if(kOperators.begin(), kOperators.end(), [&](std::string_view o) { return At(o); });
    if (op == kOperators.end()) {
      // Input text in a message: quoted and escaped, so a control byte cannot shape the report.
      Fail("unexpected char " + QuoteForMessage(std::string(1, text_[pos_])), line_, column_);
      return;
    }
    const char c = op->front();
    if (op->size() == 1 && (c == '(' || c == '[' || c == '{')) {
      open_brackets.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (op->size() == 1 && (c == ')' || c == ']' || c == '}')) {
      if (open_brackets.empty()) {
        Fail("unexpected '" + std::string(1, c) + "'", line_, column_);
        return;
      }
      if (open_brackets.back() != c) {
        Fail("unexpected '" + std::string(1, c) + "', expected '" + std::string(1, open_brackets.back()) + "'", line_,
             column_);
        return;
      }
      open_brackets.pop_back();
    }
    Emit(TokenType::kOperator, std::string(*op), line_, column_);
    Advance(pos_ + op->size());
  }

  // An integer (0b, 0o, 0x or decimal, `_` between digits) or a float; the value is its
  // Python str() where it fits 64 bits.
  void Number() {
    const std::size_t start = pos_;
    std::size_t at = pos_;
    const auto digits = [&](auto is_digit) {
      const std::size_t from = at;
      while (at < text_.size() && (is_digit(text_[at]) || (text_[at] == '_' && at > from && at + 1 < text_.size() &&
                                                           is_digit(text_[at + 1])))) {
        ++at;
      }
      return at > from;
    };
    const auto decimal = [](char c) { return c >= '0' && c <= '9'; };
    const char prefix = at + 1 < text_.size() ? static_cast<char>(std::tolower(text_[at + 1])) : '\0';
    if (text_[at] == '0' && (prefix == 'b' || prefix == 'o' || prefix == 'x')) {
      at += 2;
      if (at < text_.size() && text_[at] == '_') ++at;
      const unsigned base = prefix == 'b' ? 2 : prefix == 'o' ? 8 : 16;
      const auto in_base = [base](char c) {
        const int d = HexDigit(c);
        return d >= 0 && static_cast<unsigned>(d) < base;
      };
      if (!digits(in_base)) {
        Fail("invalid integer literal", line_, column_);
        return;
      }
      std::uint64_t value = 0;
      bool fits = true;
      for (std::size_t i = start + 2; i < at; ++i) {
        if (text_[i] == '_') continue;
        fits = fits && value <= (UINT64_MAX - 15) / base;
        value = value * base + static_cast<unsigned>(HexDigit(text_[i]));
      }
      Emit(TokenType::kInteger, fits ? std::to_string(value) : std::string(text_.substr(start, at - start)), line_,
           column_);
      Advance(at);
      return;
    }
    digits(decimal);
    bool is_float = false;
    if (at + 1 < text_.size() && text_[at] == '.' && decimal(text_[at + 1])) {
      ++at;
      digits(decimal);
      is_float = true;
    }
    if (at < text_.size() && (text_[at] == 'e' || text_[at] == 'E')) {
      std::size_t exponent = at + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) ++exponent;
      if (exponent < text_.size() && decimal(text_[exponent])) {
        at = exponent;
        digits(decimal);
        is_float = true;
      }
    }
    std::string spelling;
    for (std::size_t i = start; i < at; ++i) {
      if (text_[i] != '_') spelling += text_[i];
    }
    if (!is_float) {
      // Python's int(): leading zeros only in "0", "00", ...; the value without them.
      const std::size_t first = spelling.find_first_not_of('0');
      spelling = first == std::string::npos ? "0" : spelling.substr(first);
    }
    Emit(is_float ? TokenType::kFloat : TokenType::kInteger, std::move(spelling), line_, column_);
    Advance(at);
  }

  // A quoted string, decoded as Jinja decodes it: newlines normalized, then Python's
  // unicode-escape over the text with non-ASCII characters written as escapes first.
  void String() {
    const char quote = text_[pos_];
    std::size_t end = pos_ + 1;
    while (end < text_.size() && text_[end] != quote) end += text_[end] == '\\' ? std::size_t{2} : std::size_t{1};
    if (end >= text_.size()) {
      Fail(std::string("unexpected char ") + (quote == '\'' ? "\"'\"" : "'\"'") + ": the string is not closed", line_,
           column_);
      return;
    }
    std::string value;
    if (auto problem = Unescape(text_.substr(pos_ + 1, end - pos_ - 1), value)) {
      Fail(*problem, line_, column_);
      return;
    }
    Emit(TokenType::kString, std::move(value), line_, column_);
    Advance(end + 1);
  }

  static std::optional<std::string> Unescape(std::string_view raw, std::string& out) {
    std::size_t at = 0;
    while (at < raw.size()) {
      const char c = raw[at];
      if (c == '\r') {  // \r\n and \r are \n
        out += '\n';
        at += at + 1 < raw.size() && raw[at + 1] == '\n' ? std::size_t{2} : std::size_t{1};
        continue;
      }
      if (c != '\\') {
        out += c;
        ++at;
        continue;
      }
      if (at + 1 >= raw.size()) return "\\ at end of string";
      const auto e = static_cast<unsigned char>(raw[at + 1]);
      at += 2;
      const auto hex = [&](std::size_t count, const char* what) -> std::optional<std::string> {
        std::uint32_t cp = 0;
        for (std::size_t k = 0; k < count; ++k, ++at) {
          if (at >= raw.size() || HexDigit(raw[at]) < 0) return std::string("truncated ") + what + " escape";
          cp = cp * 16 + static_cast<std::uint32_t>(HexDigit(raw[at]));
        }
        if (cp > 0x10FFFF) return std::string("illegal Unicode character");
        AppendUtf8(out, cp);
        return std::nullopt;
      };
      if (const std::optional<char> simple = PythonSimpleEscape(static_cast<char>(e))) {
        out += *simple;
        continue;
      }
      std::optional<std::string> problem;
      switch (e) {
        case '\n':
          break;  // a line continuation
        case '\r':
          if (at < raw.size() && raw[at] == '\n') ++at;
          break;
        case 'x':
          problem = hex(2, "\\xXX");
          break;
        case 'u':
          problem = hex(4, "\\uXXXX");
          break;
        case 'U':
          problem = hex(8, "\\UXXXXXXXX");
          break;
        case 'N': {
          const std::size_t close = raw.find('}', at);
          if (at >= raw.size() || raw[at] != '{' || close == std::string_view::npos || close == at + 1) {
            return "malformed \\N character escape";
          }
          const std::string name(raw.substr(at + 1, close - at - 1));
          UErrorCode status = U_ZERO_ERROR;
          UChar32 cp = u_charFromName(U_UNICODE_CHAR_NAME, name.c_str(), &status);
          if (U_FAILURE(status)) {
            status = U_ZERO_ERROR;
            cp = u_charFromName(U_CHAR_NAME_ALIAS, name.c_str(), &status);
          }
          if (U_FAILURE(status)) return "unknown Unicode character name";
          AppendUtf8(out, static_cast<std::uint32_t>(cp));
          at = close + 1;
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            std::uint32_t cp = e - '0';
            for (std::size_t k = 1; k < 3 && at < raw.size() && raw[at] >= '0' && raw[at] <= '7'; ++k, ++at) {
              cp = cp * 8 + static_cast<std::uint32_t>(raw[at] - '0');
            }
            AppendUtf8(out, cp);
          } else if (e >= 0x80) {
            // Jinja writes the character as an escape before decoding: "\é" is `\xe9`, kept.
            std::uint32_t cp = 0;
            std::size_t length = DecodeUtf8(raw, at - 1, cp);
            if (length == 0) {  // not UTF-8: the byte as it is
              cp = e;
              length = 1;
            }
            at += length - 1;
            out += '\\';
            const auto width = cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8;
            out += cp <= 0xFF ? 'x' : cp <= 0xFFFF ? 'u' : 'U';
            for (int shift = (width - 1) * 4; shift >= 0; shift -= 4) {
              out += "0123456789abcdef"[(cp >> static_cast<unsigned>(shift)) & 0xFU];
            }
          } else {
            out += '\\';  // an unknown escape stands for itself
            out += static_cast<char>(e);
          }
      }
      if (problem) return problem;
    }
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
  std::vector<Token>* out_ = nullptr;
  std::optional<SyntaxError> error_;
};

// A parser following Jinja2's own grammar and precedence, with explicit stacks instead of
// recursion: each statement whose body is being read is an OpenBlock on blocks_, each expression
// rule in progress a Frame on frames_, so the native stack never follows the template's nesting.
// Entering a nested construct counts a level; past kMaxNesting the template is refused (Jinja
// itself stops at Python's recursion limit). After the first error the stream reads as its end,
// so every loop ends.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Template Run() {
    const std::uint32_t body = ParseTemplate();
    if (!error_ && Current().type != TokenType::kEof) Fail("unexpected " + Describe(Current()));
    Template out;
    out.nodes = std::move(nodes_);
    out.error = std::move(error_);
    if (out.nodes.empty() || body == kNoNode || out.error) out.nodes.push_back(Node{});
    return out;
  }

 private:
  [[nodiscard]] const Token& Current() const { return error_ ? eof_ : tokens_[std::min(at_, tokens_.size() - 1)]; }
  [[nodiscard]] const Token& Look() const { return error_ ? eof_ : tokens_[std::min(at_ + 1, tokens_.size() - 1)]; }
  void Next() {
    if (at_ + 1 < tokens_.size()) ++at_;
  }
  [[nodiscard]] bool IsOp(std::string_view op) const {
    return Current().type == TokenType::kOperator && Current().value == op;
  }
  [[nodiscard]] static bool IsName(const Token& token, std::string_view name) {
    return token.type == TokenType::kName && token.value == name;
  }
  [[nodiscard]] bool IsName(std::string_view name) const { return IsName(Current(), name); }
  bool SkipOp(std::string_view op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  bool SkipName(std::string_view name) {
    if (!IsName(name)) return false;
    Next();
    return true;
  }

  void Fail(std::string message) {
    if (error_) return;
    const Token& here = tokens_[std::min(at_, tokens_.size() - 1)];
    error_ = SyntaxError{here.line, here.column, std::move(message)};
  }
  void ExpectOp(std::string_view op) {
    if (!SkipOp(op)) Fail("expected token '" + std::string(op) + "', got " + Describe(Current()));
  }
  void ExpectType(TokenType type, std::string_view what) {
    if (Current().type != type) {
      Fail("expected " + std::string(what) + ", got " + Describe(Current()));
      return;
    }
    Next();
  }
  std::string ExpectName() {
    if (Current().type != TokenType::kName) {
      Fail("expected a name, got " + Describe(Current()));
      return {};
    }
    std::string name = Current().value;
    Next();
    return name;
  }

  std::uint32_t Add(NodeKind kind, const Token& at, std::string text, std::vector<std::uint32_t> children) {
    if (error_) return kNoNode;
    if (nodes_.size() >= kMaxNodes) {
      Fail("more than " + std::to_string(kMaxNodes) + " syntax nodes");
      return kNoNode;
    }
    nodes_.push_back(Node{kind, at.line, at.column, std::move(text), std::move(children)});
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }
  std::uint32_t Add(NodeKind kind, std::uint32_t line, std::uint32_t column, std::string text,
                    std::vector<std::uint32_t> children) {
    Token at;
    at.line = line;
    at.column = column;
    return Add(kind, at, std::move(text), std::move(children));
  }
  [[nodiscard]] NodeKind KindOf(std::uint32_t node) const {
    return node < nodes_.size() ? nodes_[node].kind : NodeKind::kBody;
  }

  // ---- Template structure ----

  // What ends a body or a tuple: tag names or names. Static, so frames and blocks keep views.
  using Names = std::vector<std::string_view>;
  inline static const Names kNoNames{};
  inline static const Names kForBodyEnds{"endfor", "else"};
  inline static const Names kForElseEnds{"endfor"};
  inline static const Names kIfBodyEnds{"elif", "else", "endif"};
  inline static const Names kIfElseEnds{"endif"};
  inline static const Names kInName{"in"};
  inline static const Names kRecursiveName{"recursive"};
  inline static const Names kEndSet{"endset"};
  inline static const Names kEndMacro{"endmacro"};
  inline static const Names kEndCall{"endcall"};
  inline static const Names kEndFilter{"endfilter"};
  inline static const Names kEndWith{"endwith"};
  inline static const Names kEndBlock{"endblock"};
  inline static const Names kEndAutoescape{"endautoescape"};
  inline static const Names kEndGeneration{"endgeneration"};

  static std::string Looking(const Names& tags) {
    std::string looking;
    for (std::string_view tag : tags) looking += (looking.empty() ? "'" : " or '") + std::string(tag) + "'";
    return looking;
  }

  // A nesting level entered (a statement, a bracket, a unary operator, an else branch); past
  // kMaxNesting the template is refused where the level starts.
  void EnterLevel() {
    if (++depth_ > kMaxNesting) Fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
  }
  void LeaveLevel() { --depth_; }

  // A statement whose body is being read: its head, the body so far, and what ends that body.
  // The template itself is the first (tag ""), whose body ends only at the end of the stream.
  struct OpenBlock {
    std::string tag;
    Token token;
    const Names* end_tags = &kNoNames;
    bool drop_needle = false;
    bool else_body = false;  ///< for, if: reading the else body
    Token body_start;
    std::vector<std::uint32_t> body;
    std::vector<std::uint32_t> parts;  ///< what the head built, in the order of the node's children
    std::string name;                  ///< macro, block
    std::uint32_t first_body = kNoNode;
    std::uint32_t condition = kNoNode;  ///< if: the current branch's condition; call: the call
    struct Branch {
      Token at;
      std::uint32_t condition;
      std::uint32_t body;
    };
    std::vector<Branch> branches;
    Token branch_at;
  };

  // The template's statements, read with a stack of open blocks (no recursion on nesting).
  std::uint32_t ParseTemplate() {
    blocks_.clear();
    blocks_.push_back(OpenBlock{});
    blocks_.back().body_start = Current();
    for (;;) {
      OpenBlock& open = blocks_.back();
      if (error_ || Current().type == TokenType::kEof) {
        const std::uint32_t body = Add(NodeKind::kBody, open.body_start, "", std::move(open.body));
        if (blocks_.size() == 1) return body;
        CloseBody(body);
        continue;
      }
      const Token token = Current();
      if (token.type == TokenType::kData) {
        open.body.push_back(Add(NodeKind::kData, token, token.value, {}));
        Next();
      } else if (token.type == TokenType::kVariableBegin) {
        Next();
        const std::uint32_t expr = ParseTuple(TupleOf::kExpression, kNoNames, false);
        ExpectType(TokenType::kVariableEnd, "end of print statement");
        open.body.push_back(Add(NodeKind::kOutput, token, "", {expr}));
      } else if (token.type == TokenType::kBlockBegin) {
        Next();
        if (std::any_of(open.end_tags->begin(), open.end_tags->end(),
                        [&](std::string_view tag) { return IsName(tag); })) {
          const std::uint32_t body = Add(NodeKind::kBody, open.body_start, "", std::move(open.body));
          if (blocks_.size() == 1) return body;
          CloseBody(body);
        } else {
          StartStatement();
        }
      } else {
        Fail("unexpected " + Describe(token));
      }
    }
  }

  // After a statement's head: `%}`, then its body (up to one of `end_tags`; with drop_needle the
  // end tag is skipped when the body closes).
  void BeginBody(OpenBlock& open, const Names& end_tags, bool drop_needle) {
    SkipOp(":");
    ExpectType(TokenType::kBlockEnd, "end of statement block");
    open.end_tags = &end_tags;
    open.drop_needle = drop_needle;
    open.body.clear();
    open.body_start = Current();
  }

  void OpenStatement(const Token& token, std::vector<std::uint32_t> parts, const Names& end_tags, bool drop_needle,
                     std::string name = {}) {
    blocks_.push_back(OpenBlock{});
    OpenBlock& open = blocks_.back();
    open.tag = token.value;
    open.token = token;
    open.parts = std::move(parts);
    open.name = std::move(name);
    BeginBody(open, end_tags, drop_needle);
  }

  // A statement is complete: its level is left and it joins the enclosing body.
  void EndStatement(std::uint32_t node) {
    LeaveLevel();
    blocks_.back().body.push_back(node);
    ExpectType(TokenType::kBlockEnd, "end of statement block");
  }
  void EndBlock(std::uint32_t node) {
    blocks_.pop_back();
    EndStatement(node);
  }

  // The statement after `{%` (its level entered here, left by EndStatement).
  void StartStatement() {
    EnterLevel();
    const Token token = Current();
    if (token.type != TokenType::kName) {
      Fail("tag name expected");
      EndStatement(kNoNode);
      return;
    }
    const std::string& tag = token.value;
    if (tag == "for") {
      Next();
      const std::uint32_t target = ParseAssignTarget(false, kInName);
      if (!SkipName("in")) Fail("expected 'in', got " + Describe(Current()));
      const std::uint32_t iterable = ParseTuple(TupleOf::kNoCondition, kRecursiveName, false);
      std::uint32_t condition = kNoNode;
      if (SkipName("if")) condition = ParseExpression(true);
      SkipName("recursive");
      OpenStatement(token, {target, iterable, condition}, kForBodyEnds, false);
    } else if (tag == "if") {
      Next();
      if (error_) {
        EndStatement(kNoNode);
        return;
      }
      const std::uint32_t condition = ParseTuple(TupleOf::kNoCondition, kNoNames, false);
      OpenStatement(token, {}, kIfBodyEnds, false);
      blocks_.back().condition = condition;
      blocks_.back().branch_at = token;
    } else if (tag == "set") {
      Next();
      const std::uint32_t target = ParseAssignTarget(true, kNoNames);
      if (SkipOp("=")) {
        const std::uint32_t value = ParseTuple(TupleOf::kExpression, kNoNames, false);
        EndStatement(Add(NodeKind::kSet, token, "", {target, value}));
        return;
      }
      const std::uint32_t filter = IsOp("|") ? ParseFilter(kNoNode, false) : kNoNode;
      OpenStatement(token, {target, filter}, kEndSet, true);
    } else if (tag == "macro") {
      Next();
      std::string name = ExpectName();
      std::vector<std::uint32_t> params = ParseSignature();
      OpenStatement(token, std::move(params), kEndMacro, true, std::move(name));
    } else if (tag == "call") {
      Next();
      std::vector<std::uint32_t> params;
      if (IsOp("(")) params = ParseSignature();
      const std::uint32_t call = ParseExpression(true);
      if (!error_ && KindOf(call) != NodeKind::kCall) Fail("expected call");
      OpenStatement(token, std::move(params), kEndCall, true);
      blocks_.back().condition = call;
    } else if (tag == "filter") {
      Next();
      const std::uint32_t chain = ParseFilter(kNoNode, true);
      OpenStatement(token, {chain}, kEndFilter, true);
    } else if (tag == "with") {
      Next();
      std::vector<std::uint32_t> assignments;
      while (!error_ && Current().type != TokenType::kBlockEnd) {
        if (!assignments.empty()) ExpectOp(",");
        const Token at = Current();
        const std::uint32_t target = ParseAssignTarget(false, kNoNames);
        ExpectOp("=");
        const std::uint32_t value = ParseExpression(true);
        assignments.push_back(Add(NodeKind::kKeyword, at, "", {value, target}));
      }
      OpenStatement(token, std::move(assignments), kEndWith, true);
    } else if (tag == "block") {
      Next();
      std::string name = ExpectName();
      SkipName("scoped");
      SkipName("required");
      OpenStatement(token, {}, kEndBlock, true, std::move(name));
    } else if (tag == "extends" || tag == "include" || tag == "import" || tag == "from") {
      EndStatement(ParseTemplateReference());
    } else if (tag == "print" || tag == "do") {
      Next();
      std::vector<std::uint32_t> exprs;
      while (!error_ && Current().type != TokenType::kBlockEnd) {
        if (!exprs.empty()) ExpectOp(",");
        exprs.push_back(ParseExpression(true));
      }
      EndStatement(Add(NodeKind::kStatement, token, tag, std::move(exprs)));
    } else if (tag == "autoescape") {
      Next();
      const std::uint32_t expr = ParseExpression(true);
      OpenStatement(token, {expr}, kEndAutoescape, true);
    } else if (tag == "generation") {  // transformers' AssistantTracker
      Next();
      OpenStatement(token, {}, kEndGeneration, true);
    } else if (tag == "break" || tag == "continue") {  // jinja2.ext.loopcontrols
      Next();
      EndStatement(Add(NodeKind::kStatement, token, tag, {}));
    } else {
      std::string message = "Encountered unknown tag " + QuoteForMessage(tag, 40) + ".";
      const Names& enclosing = *blocks_.back().end_tags;
      if (!enclosing.empty()) message += " Jinja was looking for the following tags: " + Looking(enclosing) + ".";
      Fail(std::move(message));
      EndStatement(kNoNode);
    }
  }

  // The body of the innermost open statement ended (at one of its end tags, the end of the
  // stream, or an error): the statement goes on with its next body or is complete.
  void CloseBody(std::uint32_t body) {
    OpenBlock& open = blocks_.back();
    if (!error_ && Current().type == TokenType::kEof) {
      Fail("Unexpected end of template. Jinja was looking for the following tags: " + Looking(*open.end_tags) + ".");
    }
    if (open.drop_needle) Next();
    const std::string& tag = open.tag;
    const Token& token = open.token;
    if (tag == "for") {
      if (!open.else_body) {
        const bool has_else = IsName("else");
        Next();
        if (has_else) {
          open.first_body = body;
          open.else_body = true;
          BeginBody(open, kForElseEnds, true);
          return;
        }
        EndBlock(Add(NodeKind::kFor, token, "", {open.parts[0], open.parts[1], open.parts[2], body, kNoNode}));
        return;
      }
      EndBlock(Add(NodeKind::kFor, token, "", {open.parts[0], open.parts[1], open.parts[2], open.first_body, body}));
    } else if (tag == "if") {
      std::uint32_t else_body = kNoNode;
      if (!open.else_body) {
        open.branches.push_back({open.branch_at, open.condition, body});
        open.branch_at = Current();
        const std::string branch = Current().value;
        Next();
        if (branch == "elif" && !error_) {
          open.condition = ParseTuple(TupleOf::kNoCondition, kNoNames, false);
          BeginBody(open, kIfBodyEnds, false);
          return;
        }
        if (branch == "else") {
          open.else_body = true;
          BeginBody(open, kIfElseEnds, true);
          return;
        }
      } else {
        else_body = body;
      }
      // Innermost first, so each node follows its children.
      std::uint32_t node = else_body;
      for (auto it = open.branches.rbegin(); it != open.branches.rend(); ++it) {
        node = Add(NodeKind::kIf, it->at, "", {it->condition, it->body, node});
      }
      EndBlock(node);
    } else if (tag == "set") {
      EndBlock(Add(NodeKind::kSetBlock, token, "", {open.parts[0], body, open.parts[1]}));
    } else if (tag == "macro") {
      std::vector<std::uint32_t> children = std::move(open.parts);
      children.insert(children.begin(), body);
      EndBlock(Add(NodeKind::kMacro, token, open.name, std::move(children)));
    } else if (tag == "call") {
      std::vector<std::uint32_t> children = std::move(open.parts);
      children.insert(children.begin(), {open.condition, body});
      EndBlock(Add(NodeKind::kCallBlock, token, "", std::move(children)));
    } else if (tag == "filter") {
      EndBlock(Add(NodeKind::kFilterBlock, token, "", {open.parts[0], body}));
    } else if (tag == "with") {
      std::vector<std::uint32_t> children = std::move(open.parts);
      children.insert(children.begin(), body);
      EndBlock(Add(NodeKind::kWith, token, "", std::move(children)));
    } else if (tag == "block") {
      if (Current().type == TokenType::kName) Next();  // {% endblock name %}
      EndBlock(Add(NodeKind::kBlock, token, open.name, {body}));
    } else if (tag == "autoescape") {
      EndBlock(Add(NodeKind::kStatement, token, tag, {open.parts[0], body}));
    } else {  // generation
      EndBlock(Add(NodeKind::kStatement, token, tag, {body}));
    }
  }

  // `(a, b=default, ...)` of a macro or a call block.
  std::vector<std::uint32_t> ParseSignature() {
    std::vector<std::uint32_t> params;
    bool defaults = false;
    ExpectOp("(");
    while (!error_ && !IsOp(")")) {
      if (!params.empty()) ExpectOp(",");
      const Token at = Current();
      std::string name = ExpectName();
      if (SkipOp("=")) {
        const std::uint32_t value = ParseExpression(true);
        params.push_back(Add(NodeKind::kKeyword, at, std::move(name), {value}));
        defaults = true;
      } else {
        if (defaults) Fail("non-default argument follows default argument");
        params.push_back(Add(NodeKind::kName, at, std::move(name), {}));
      }
    }
    ExpectOp(")");
    return params;
  }

  // extends, include, import, from: a template name and its modifiers.
  std::uint32_t ParseTemplateReference() {
    const Token token = Current();
    const std::string tag = token.value;
    Next();
    std::vector<std::uint32_t> children{ParseExpression(true)};
    const auto context = [&] {
      if ((IsName("with") || IsName("without")) && IsName(Look(), "context")) {
        Next();
        Next();
        return true;
      }
      return false;
    };
    if (tag == "include") {
      if (IsName("ignore") && IsName(Look(), "missing")) {
        Next();
        Next();
      }
      context();
    } else if (tag == "import") {
      if (!SkipName("as")) Fail("expected 'as', got " + Describe(Current()));
      children.push_back(ParseAssignTarget(false, kNoNames, true));
      context();
    } else if (tag == "from") {
      if (!SkipName("import")) Fail("expected 'import', got " + Describe(Current()));
      bool first = true;
      while (!error_) {
        if (!first) ExpectOp(",");
        first = false;
        if (Current().type != TokenType::kName) {
          ExpectName();
          break;
        }
        if (context()) break;
        const Token at = Current();
        const std::string name = ExpectName();
        if (name.starts_with('_')) Fail("names starting with an underline can not be imported");
        children.push_back(Add(NodeKind::kName, at, name, {}));
        if (SkipName("as")) children.push_back(ParseAssignTarget(false, kNoNames, true));
        if (context() || !IsOp(",")) break;
      }
    }
    return Add(NodeKind::kStatement, token, tag, std::move(children));
  }

  // ---- Expressions ----
  //
  // Each rule of Jinja's expression grammar in progress is a Frame on frames_: its state (where
  // the rule resumes when the sub-rule it asked for returns) and what it has built. A rule asks
  // for a sub-rule with Call and gives its node back with Return; Evaluate runs frames until the
  // first one returns. The frames are heap memory bounded by the nesting bound, never the
  // native stack.

  enum class TupleOf : std::uint8_t { kPrimary, kExpression, kNoCondition };

  enum class Rule : std::uint8_t {
    kTuple,
    kCondExpr,
    kBinary,  ///< one level of left-associative binary operators (`level`)
    kNot,
    kCompare,
    kUnary,
    kPostfix,     ///< attribute, item and call suffixes of `node`
    kFilterExpr,  ///< filters, tests and calls after `node`
    kPrimary,
    kList,
    kDict,
    kSubscript,
    kSubscribed,
    kCallArgs,  ///< returns its items (the prefix it was given, then the arguments)
    kCall,
    kFilter,
    kTest,
  };
  // The binary levels, loosest first: or, and, + -, ~, * / // %, **.
  enum class Level : std::uint8_t { kOr, kAnd, kMath1, kConcat, kMath2, kPow };

  struct Frame {
    Rule rule = Rule::kPrimary;
    std::uint8_t state = 0;
    Level level = Level::kOr;
    TupleOf of = TupleOf::kExpression;
    bool flag = false;  ///< tuple: explicit parens; unary: with filters; filter: starts inline;
                        ///< test: negated; call arguments: a comma is required next
    bool is_tuple = false;
    bool entered = false;   ///< entered a nesting level, left when the frame returns
    std::uint8_t seen = 0;  ///< call arguments: kSeenKeywords | kSeenArgs | kSeenKwargs
    Token at;
    std::uint32_t node = kNoNode;
    std::uint32_t condition = kNoNode;
    std::string text;  ///< an operator, a filter's or a test's name
    std::vector<std::uint32_t> items;
    const Names* ends = &kNoNames;
  };
  static constexpr std::uint8_t kSeenKeywords = 1;
  static constexpr std::uint8_t kSeenArgs = 2;
  static constexpr std::uint8_t kSeenKwargs = 4;

  static Frame Make(Rule rule) {
    Frame f;
    f.rule = rule;
    return f;
  }
  static Frame Binary(Level level) {
    Frame f = Make(Rule::kBinary);
    f.level = level;
    return f;
  }
  static Frame Expression(bool with_condition) { return with_condition ? Make(Rule::kCondExpr) : Binary(Level::kOr); }
  static Frame Tuple(TupleOf of, const Names& ends, bool explicit_parens) {
    Frame f = Make(Rule::kTuple);
    f.of = of;
    f.ends = &ends;
    f.flag = explicit_parens;
    return f;
  }
  static Frame Unary(bool with_filter) {
    Frame f = Make(Rule::kUnary);
    f.flag = with_filter;
    return f;
  }
  static Frame On(Rule rule, std::uint32_t node) {
    Frame f = Make(rule);
    f.node = node;
    return f;
  }
  static Frame CallArgs(std::vector<std::uint32_t> prefix) {
    Frame f = Make(Rule::kCallArgs);
    f.items = std::move(prefix);
    return f;
  }
  // A frame for a construct that is a nesting level of its own: the level is entered now.
  Frame Nested(Frame f) {
    EnterLevel();
    f.entered = true;
    return f;
  }

  std::uint32_t Evaluate(Frame first) {
    frames_.clear();
    frames_.push_back(std::move(first));
    result_ = kNoNode;
    while (!frames_.empty()) Step();
    return result_;
  }
  // Asks for `child`; the current frame resumes at `state` with its node in result_.
  void Call(std::uint8_t state, Frame child) {
    frames_.back().state = state;
    frames_.push_back(std::move(child));
  }
  void Return(std::uint32_t node) {
    if (frames_.back().entered) LeaveLevel();
    frames_.pop_back();
    result_ = node;
  }
  void ReturnItems(std::vector<std::uint32_t> items) {
    result_items_ = std::move(items);
    Return(kNoNode);
  }

  std::uint32_t ParseTuple(TupleOf of, const Names& extra_end, bool explicit_parens) {
    return Evaluate(Tuple(of, extra_end, explicit_parens));
  }
  std::uint32_t ParseExpression(bool with_condition) { return Evaluate(Expression(with_condition)); }
  std::uint32_t ParseFilter(std::uint32_t operand, bool start_inline) {
    Frame f = On(Rule::kFilter, operand);
    f.flag = start_inline;
    return Evaluate(std::move(f));
  }

  // Runs the top frame until it calls or returns.
  void Step() {
    Frame& f = frames_.back();
    const std::uint32_t got = result_;
    switch (f.rule) {
      case Rule::kTuple:
        return StepTuple(f, got);
      case Rule::kCondExpr:
        return StepCondExpr(f, got);
      case Rule::kBinary:
        return StepBinary(f, got);
      case Rule::kNot:
        return StepNot(f, got);
      case Rule::kCompare:
        return StepCompare(f, got);
      case Rule::kUnary:
        return StepUnary(f, got);
      case Rule::kPostfix:
        return StepPostfix(f, got);
      case Rule::kFilterExpr:
        return StepFilterExpr(f, got);
      case Rule::kPrimary:
        return StepPrimary(f, got);
      case Rule::kList:
      case Rule::kDict:
        return StepDisplay(f, got);
      case Rule::kSubscript:
        return StepSubscript(f, got);
      case Rule::kSubscribed:
        return StepSubscribed(f, got);
      case Rule::kCallArgs:
        return StepCallArgs(f, got);
      case Rule::kCall:
        return StepCall(f, got);
      case Rule::kFilter:
        return StepFilter(f, got);
      case Rule::kTest:
        return StepTest(f, got);
    }
  }

  [[nodiscard]] bool IsTupleEnd(const Names& extra_end) const {
    const Token& t = Current();
    if (t.type == TokenType::kVariableEnd || t.type == TokenType::kBlockEnd || t.type == TokenType::kEof) return true;
    if (t.type == TokenType::kOperator && t.value == ")") return true;
    return std::any_of(extra_end.begin(), extra_end.end(), [&](std::string_view name) { return IsName(name); });
  }

  // Items separated by commas; one item without a comma is that item, not a tuple.
  void StepTuple(Frame& f, std::uint32_t got) {
    for (;;) {
      switch (f.state) {
        case 0:
          f.at = Current();
          f.state = 1;
          continue;
        case 1:
          if (error_) break;
          if (!f.items.empty()) ExpectOp(",");
          if (IsTupleEnd(*f.ends)) break;
          return Call(2, f.of == TupleOf::kPrimary ? Make(Rule::kPrimary) : Expression(f.of == TupleOf::kExpression));
        default:
          f.items.push_back(got);
          if (!IsOp(",")) break;
          f.is_tuple = true;
          f.state = 1;
          continue;
      }
      break;
    }
    if (!f.is_tuple) {
      if (!f.items.empty()) return Return(f.items.front());
      if (!f.flag) Fail("Expected an expression, got " + Describe(Current()));
    }
    const Token at = f.at;
    std::vector<std::uint32_t> items = std::move(f.items);
    Return(Add(NodeKind::kTuple, at, "", std::move(items)));
  }

  // `a if c else b`, the else branch a level of its own.
  void StepCondExpr(Frame& f, std::uint32_t got) {
    switch (f.state) {
      case 0:
        return Call(1, Binary(Level::kOr));
      case 1:
        f.node = got;
        break;
      case 2:
        f.condition = got;
        if (SkipName("else")) return Call(3, Nested(Make(Rule::kCondExpr)));
        f.node = Add(NodeKind::kCondExpr, f.at, "", {f.node, f.condition, kNoNode});
        break;
      default:
        f.node = Add(NodeKind::kCondExpr, f.at, "", {f.node, f.condition, got});
        break;
    }
    if (!error_ && IsName("if")) {
      f.at = Current();
      Next();
      return Call(2, Binary(Level::kOr));
    }
    Return(f.node);
  }

  void StepBinary(Frame& f, std::uint32_t got) {
    static const std::array<Names, 6> kOps = {
        Names{"or"}, Names{"and"}, Names{"+", "-"}, Names{"~"}, Names{"*", "/", "//", "%"}, Names{"**"}};
    const auto operand = [&] {
      switch (f.level) {
        case Level::kOr:
          return Binary(Level::kAnd);
        case Level::kAnd:
          return Make(Rule::kNot);
        case Level::kMath1:
          return Binary(Level::kConcat);
        case Level::kConcat:
          return Binary(Level::kMath2);
        case Level::kMath2:
          return Binary(Level::kPow);
        case Level::kPow:
          break;
      }
      return Unary(true);
    };
    if (f.state == 0) return Call(1, operand());
    f.node = f.state == 1 ? got : Add(NodeKind::kBinary, f.at, f.text, {f.node, got});
    if (error_) return Return(f.node);
    const bool keyword = f.level == Level::kOr || f.level == Level::kAnd;
    const auto& ops = kOps[static_cast<std::size_t>(f.level)];
    const auto op =
        std::find_if(ops.begin(), ops.end(), [&](std::string_view o) { return keyword ? IsName(o) : IsOp(o); });
    if (op == ops.end()) return Return(f.node);
    f.at = Current();
    f.text = std::string(*op);
    Next();
    Call(2, operand());
  }

  void StepNot(Frame& f, std::uint32_t got) {
    switch (f.state) {
      case 0:
        if (IsName("not")) {
          f.at = Current();
          Next();
          return Call(1, Nested(Make(Rule::kNot)));
        }
        return Call(2, Make(Rule::kCompare));
      case 1:
        return Return(Add(NodeKind::kUnary, f.at, "not", {got}));
      default:
        return Return(got);
    }
  }

  void StepCompare(Frame& f, std::uint32_t got) {
    if (f.state == 0) return Call(1, Binary(Level::kMath1));
    f.node = f.state == 1 ? got : Add(NodeKind::kBinary, f.at, f.text, {f.node, got});
    if (error_) return Return(f.node);
    const Token at = Current();
    std::string op;
    if (at.type == TokenType::kOperator && (at.value == "==" || at.value == "!=" || at.value == "<" ||
                                            at.value == "<=" || at.value == ">" || at.value == ">=")) {
      op = at.value;
      Next();
    } else if (IsName("in")) {
      op = "in";
      Next();
    } else if (IsName("not") && IsName(Look(), "in")) {
      op = "not in";
      Next();
      Next();
    } else {
      return Return(f.node);
    }
    f.at = at;
    f.text = std::move(op);
    Call(2, Binary(Level::kMath1));
  }

  // A sign (a level of its own) or a primary, then its suffixes, then (with_filter) filters.
  void StepUnary(Frame& f, std::uint32_t got) {
    switch (f.state) {
      case 0:
        if (IsOp("-") || IsOp("+")) {
          f.at = Current();
          Next();
          return Call(1, Nested(Unary(false)));
        }
        return Call(2, Make(Rule::kPrimary));
      case 1:
        return Call(3, On(Rule::kPostfix, Add(NodeKind::kUnary, f.at, f.at.value, {got})));
      case 2:
        return Call(3, On(Rule::kPostfix, got));
      case 3:
        if (!f.flag) return Return(got);
        return Call(4, On(Rule::kFilterExpr, got));
      default:
        return Return(got);
    }
  }

  void StepPostfix(Frame& f, std::uint32_t got) {
    if (f.state == 1) f.node = got;
    if (error_) return Return(f.node);
    if (IsOp(".") || IsOp("[")) return Call(1, On(Rule::kSubscript, f.node));
    if (IsOp("(")) return Call(1, On(Rule::kCall, f.node));
    Return(f.node);
  }

  void StepFilterExpr(Frame& f, std::uint32_t got) {
    if (f.state == 1) f.node = got;
    if (error_) return Return(f.node);
    if (IsOp("|")) return Call(1, On(Rule::kFilter, f.node));
    if (IsName("is")) return Call(1, On(Rule::kTest, f.node));
    if (IsOp("(")) return Call(1, On(Rule::kCall, f.node));
    Return(f.node);
  }

  void StepPrimary(Frame& f, std::uint32_t got) {
    if (f.state == 1) {
      ExpectOp(")");
      return Return(got);
    }
    if (f.state == 2) return Return(got);
    const Token token = Current();
    switch (token.type) {
      case TokenType::kName: {
        Next();
        const std::string& v = token.value;
        if (v == "true" || v == "false" || v == "True" || v == "False" || v == "none" || v == "None") {
          return Return(Add(NodeKind::kConstant, token, v, {}));
        }
        return Return(Add(NodeKind::kName, token, v, {}));
      }
      case TokenType::kString: {
        std::string value = token.value;
        Next();
        while (!error_ && Current().type == TokenType::kString) {  // adjacent literals join
          value += Current().value;
          Next();
        }
        return Return(Add(NodeKind::kString, token, std::move(value), {}));
      }
      case TokenType::kInteger:
      case TokenType::kFloat:
        Next();
        return Return(Add(NodeKind::kNumber, token, token.value, {}));
      case TokenType::kOperator:
        if (token.value == "(") {
          Next();
          return Call(1, Nested(Tuple(TupleOf::kExpression, kNoNames, true)));
        }
        if (token.value == "[") return Call(2, Make(Rule::kList));
        if (token.value == "{") return Call(2, Make(Rule::kDict));
        break;
      default:
        break;
    }
    Fail("unexpected " + Describe(token));
    Return(kNoNode);
  }

  // `[a, b]` or `{k: v}` (a level of its own): items up to the closing bracket, a dict's in pairs.
  void StepDisplay(Frame& f, std::uint32_t got) {
    const bool dict = f.rule == Rule::kDict;
    const std::string_view close = dict ? "}" : "]";
    switch (f.state) {
      case 0:
        f.at = Current();
        Next();
        EnterLevel();
        f.entered = true;
        break;
      case 1:
        f.items.push_back(got);
        if (dict) {
          ExpectOp(":");
          return Call(2, Expression(true));
        }
        break;
      default:
        f.items.push_back(got);
        break;
    }
    if (!error_ && !IsOp(close)) {
      if (!f.items.empty()) ExpectOp(",");
      if (!IsOp(close)) return Call(1, Expression(true));
    }
    ExpectOp(close);
    const Token at = f.at;
    std::vector<std::uint32_t> items = std::move(f.items);
    Return(Add(dict ? NodeKind::kDict : NodeKind::kList, at, "", std::move(items)));
  }

  // `.name`, `.0`, or `[...]` (a level of its own) after `node`.
  void StepSubscript(Frame& f, std::uint32_t got) {
    if (f.state == 0) {
      f.at = Current();
      Next();
      if (f.at.value == ".") {
        const Token attr = Current();
        Next();
        if (attr.type == TokenType::kName) return Return(Add(NodeKind::kGetattr, attr, attr.value, {f.node}));
        if (attr.type == TokenType::kInteger) {
          const std::uint32_t index = Add(NodeKind::kNumber, attr, attr.value, {});
          return Return(Add(NodeKind::kGetitem, attr, "", {f.node, index}));
        }
        Fail("expected name or number");
        return Return(kNoNode);
      }
      EnterLevel();
      f.entered = true;
    } else {
      f.items.push_back(got);
    }
    if (!error_ && !IsOp("]")) {
      if (!f.items.empty()) ExpectOp(",");
      return Call(1, Make(Rule::kSubscribed));
    }
    ExpectOp("]");
    const std::uint32_t index =
        f.items.size() == 1 ? f.items.front() : Add(NodeKind::kTuple, f.at, "", std::move(f.items));
    Return(Add(NodeKind::kGetitem, f.at, "", {f.node, index}));
  }

  // One subscript: an expression, or a slice `start:stop:step` with any part left out.
  void StepSubscribed(Frame& f, std::uint32_t got) {
    const auto ends = [&] { return IsOp("]") || IsOp(","); };
    for (;;) {
      switch (f.state) {
        case 0:
          f.at = Current();
          if (IsOp(":")) {
            Next();
            f.items.push_back(kNoNode);
            f.state = 2;
            continue;
          }
          return Call(1, Expression(true));
        case 1:
          if (!IsOp(":")) return Return(got);
          Next();
          f.items.push_back(got);
          f.state = 2;
          continue;
        case 2:
          if (IsOp(":") || ends()) {
            f.items.push_back(kNoNode);
            f.state = 4;
            continue;
          }
          return Call(3, Expression(true));
        case 3:
          f.items.push_back(got);
          f.state = 4;
          continue;
        case 4:
          if (IsOp(":")) {
            Next();
            if (!ends()) return Call(5, Expression(true));
          }
          f.items.push_back(kNoNode);
          break;
        default:
          f.items.push_back(got);
          break;
      }
      break;
    }
    const Token at = f.at;
    std::vector<std::uint32_t> parts = std::move(f.items);
    Return(Add(NodeKind::kSlice, at, "", std::move(parts)));
  }

  // `(args)`: positional, then keyword, `*args` and `**kwargs` arguments, in Jinja's order.
  void StepCallArgs(Frame& f, std::uint32_t got) {
    const auto ensure = [&](bool ok) {
      if (!ok) Fail("invalid syntax for function call expression");
    };
    switch (f.state) {
      case 0:
        EnterLevel();
        f.entered = true;
        ExpectOp("(");
        break;
      case 1:
        f.items.push_back(Add(NodeKind::kStarArgs, f.at, "", {got}));
        f.seen |= kSeenArgs;
        break;
      case 2:
        f.items.push_back(Add(NodeKind::kStarKwargs, f.at, "", {got}));
        f.seen |= kSeenKwargs;
        break;
      case 3:
        f.items.push_back(Add(NodeKind::kKeyword, f.at, f.at.value, {got}));
        f.seen |= kSeenKeywords;
        break;
      default:
        f.items.push_back(got);
        break;
    }
    if (f.state != 0) f.flag = true;  // a comma is required before the next argument
    if (!error_ && !IsOp(")")) {
      bool closed = false;
      if (f.flag) {
        ExpectOp(",");
        closed = IsOp(")");
      }
      if (!closed) {
        f.at = Current();
        if (IsOp("*")) {
          ensure((f.seen & (kSeenArgs | kSeenKwargs)) == 0);
          Next();
          return Call(1, Expression(true));
        }
        if (IsOp("**")) {
          ensure((f.seen & kSeenKwargs) == 0);
          Next();
          return Call(2, Expression(true));
        }
        if (f.at.type == TokenType::kName && Look().type == TokenType::kOperator && Look().value == "=") {
          ensure((f.seen & kSeenKwargs) == 0);
          Next();
          Next();
          return Call(3, Expression(true));
        }
        ensure(f.seen == 0);
        return Call(4, Expression(true));
      }
    }
    ExpectOp(")");
    ReturnItems(std::move(f.items));
  }

  void StepCall(Frame& f, std::uint32_t /*got*/) {
    if (f.state == 0) {
      f.at = Current();
      return Call(1, CallArgs({f.node}));
    }
    const Token at = f.at;
    Return(Add(NodeKind::kCall, at, "", std::move(result_items_)));
  }

  std::string DottedName() {
    std::string name = ExpectName();
    while (!error_ && IsOp(".")) {
      Next();
      name += "." + ExpectName();
    }
    return name;
  }

  // `|name(args)` filters on `node` (in a filter block or `set` block, the first without `|`).
  void StepFilter(Frame& f, std::uint32_t /*got*/) {
    if (f.state == 1) f.node = Add(NodeKind::kFilter, f.at, f.text, std::move(result_items_));
    while (!error_ && (IsOp("|") || f.flag)) {
      if (!f.flag) Next();
      f.flag = false;
      f.at = Current();
      f.text = DottedName();
      if (IsOp("(")) return Call(1, CallArgs({f.node}));
      f.node = Add(NodeKind::kFilter, f.at, f.text, {f.node});
    }
    Return(f.node);
  }

  // `is [not] name`, with arguments in parentheses or one argument without.
  void StepTest(Frame& f, std::uint32_t got) {
    switch (f.state) {
      case 0: {
        f.at = Current();
        Next();  // is
        f.flag = SkipName("not");
        f.text = DottedName();
        f.items = {f.node};
        const Token& next = Current();
        if (IsOp("(")) return Call(1, CallArgs(std::move(f.items)));
        if ((next.type == TokenType::kName || next.type == TokenType::kString || next.type == TokenType::kInteger ||
             next.type == TokenType::kFloat || IsOp("(") || IsOp("[") || IsOp("{")) &&
            !IsName("else") && !IsName("or") && !IsName("and")) {
          if (IsName("is")) {
            Fail("You cannot chain multiple tests with is");
            return Return(kNoNode);
          }
          return Call(2, Make(Rule::kPrimary));
        }
        break;
      }
      case 1:
        f.items = std::move(result_items_);
        break;
      case 2:
        return Call(3, On(Rule::kPostfix, got));
      default:
        f.items.push_back(got);
        break;
    }
    const std::uint32_t test = Add(NodeKind::kTest, f.at, f.text, std::move(f.items));
    Return(f.flag ? Add(NodeKind::kUnary, f.at, "not", {test}) : test);
  }

  // A name, `ns.attr` (with_namespace), or (unless name_only) a tuple of names.
  std::uint32_t ParseAssignTarget(bool with_namespace, const Names& extra_end, bool name_only = false) {
    const Token at = Current();
    if (with_namespace && Current().type == TokenType::kName && Look().type == TokenType::kOperator &&
        Look().value == ".") {
      const std::string ns = ExpectName();
      Next();
      const std::uint32_t object = Add(NodeKind::kName, at, ns, {});
      const Token attr_at = Current();
      return Add(NodeKind::kGetattr, attr_at, ExpectName(), {object});
    }
    if (name_only) return Add(NodeKind::kName, at, ExpectName(), {});
    const std::uint32_t target = ParseTuple(TupleOf::kPrimary, extra_end, false);
    if (error_) return kNoNode;
    const Node& node = nodes_[target];
    const bool assignable =
        node.kind == NodeKind::kName ||
        (node.kind == NodeKind::kTuple && std::all_of(node.children.begin(), node.children.end(),
                                                      [&](std::uint32_t c) { return KindOf(c) == NodeKind::kName; }));
    if (!assignable) Fail("can't assign to this expression");
    return target;
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  std::vector<Node> nodes_;
  std::size_t depth_ = 0;
  std::vector<OpenBlock> blocks_;
  std::vector<Frame> frames_;
  std::uint32_t result_ = kNoNode;           // what the last frame returned
  std::vector<std::uint32_t> result_items_;  // what the last call arguments returned
  std::optional<SyntaxError> error_;
  Token eof_;
};

}  // namespace

Template Parse(std::string_view text) {
  if (text.size() > kMaxTemplateBytes) {
    Template out;
    out.nodes.push_back(Node{});
    out.error = SyntaxError{1, 1,
                            "the template is " + std::to_string(text.size()) + " bytes, over the " +
                                std::to_string(kMaxTemplateBytes) + "-byte bound"};
    return out;
  }
  std::vector<Token> tokens;
  if (auto error = Lexer(text).Run(tokens)) {
    Template out;
    out.nodes.push_back(Node{});
    out.error = std::move(error);
    return out;
  }
  return Parser(std::move(tokens)).Run();
}

}  // namespace ckpt::jinja
