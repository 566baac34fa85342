#include "lib/metadata/jinja_syntax.h"

#include <pthread.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <exception>
#include <initializer_list>
#include <memory>
#include <system_error>
#include <utility>

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

// A recursive-descent parser following Jinja2's own grammar and precedence. Every recursion
// on input nesting passes a NestingGuard; past kMaxNesting the template is refused (Jinja
// itself stops at Python's recursion limit), and it runs on a stack of its own sized for that
// bound (ParseOnItsOwnStack). After the first error the stream reads as its end, so every loop
// ends.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Template Run() {
    const std::uint32_t body = Subparse({});
    if (!error_ && Current().type != TokenType::kEof) Fail("unexpected " + Describe(Current()));
    Template out;
    out.nodes = std::move(nodes_);
    out.error = std::move(error_);
    if (out.nodes.empty() || body == kNoNode || out.error) out.nodes.push_back(Node{});
    return out;
  }

 private:
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting) {
        parser_.Fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
      }
    }
    ~NestingGuard() { --parser_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;
    NestingGuard(NestingGuard&&) = delete;
    NestingGuard& operator=(NestingGuard&&) = delete;

   private:
    Parser& parser_;
  };

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

  // Statements up to EOF or a block whose tag is one of `end_tags` (left as the current token).
  std::uint32_t Subparse(std::initializer_list<std::string_view> end_tags) {
    const Token start = Current();
    std::vector<std::uint32_t> body;
    while (!error_ && Current().type != TokenType::kEof) {
      const Token token = Current();
      if (token.type == TokenType::kData) {
        body.push_back(Add(NodeKind::kData, token, token.value, {}));
        Next();
      } else if (token.type == TokenType::kVariableBegin) {
        Next();
        const std::uint32_t expr = ParseTuple(TupleOf::kExpression, {}, false);
        ExpectType(TokenType::kVariableEnd, "end of print statement");
        body.push_back(Add(NodeKind::kOutput, token, "", {expr}));
      } else if (token.type == TokenType::kBlockBegin) {
        Next();
        if (std::any_of(end_tags.begin(), end_tags.end(), [&](std::string_view tag) { return IsName(tag); })) {
          return Add(NodeKind::kBody, start, "", std::move(body));
        }
        body.push_back(ParseStatement(end_tags));
        ExpectType(TokenType::kBlockEnd, "end of statement block");
      } else {
        Fail("unexpected " + Describe(token));
      }
    }
    return Add(NodeKind::kBody, start, "", std::move(body));
  }

  // After a statement's head: `%}`, the body up to one of `end_tags`, and (drop_needle) the tag.
  std::uint32_t ParseStatements(std::initializer_list<std::string_view> end_tags, bool drop_needle) {
    SkipOp(":");
    ExpectType(TokenType::kBlockEnd, "end of statement block");
    const std::uint32_t body = Subparse(end_tags);
    if (!error_ && Current().type == TokenType::kEof) {
      std::string looking;
      for (std::string_view tag : end_tags) looking += (looking.empty() ? "'" : " or '") + std::string(tag) + "'";
      Fail("Unexpected end of template. Jinja was looking for the following tags: " + looking + ".");
    }
    if (drop_needle) Next();
    return body;
  }

  std::uint32_t ParseStatement(std::initializer_list<std::string_view> enclosing_end_tags) {
    const NestingGuard guard(*this);
    const Token token = Current();
    if (token.type != TokenType::kName) {
      Fail("tag name expected");
      return kNoNode;
    }
    const std::string& tag = token.value;
    if (tag == "for") return ParseFor();
    if (tag == "if") return ParseIf();
    if (tag == "set") return ParseSet();
    if (tag == "macro") return ParseMacro();
    if (tag == "call") return ParseCallBlock();
    if (tag == "filter") {
      Next();
      const std::uint32_t chain = ParseFilter(kNoNode, true);
      const std::uint32_t body = ParseStatements({"endfilter"}, true);
      return Add(NodeKind::kFilterBlock, token, "", {chain, body});
    }
    if (tag == "with") return ParseWith();
    if (tag == "block") {
      Next();
      const std::string name = ExpectName();
      SkipName("scoped");
      SkipName("required");
      const std::uint32_t body = ParseStatements({"endblock"}, true);
      if (Current().type == TokenType::kName) Next();  // {% endblock name %}
      return Add(NodeKind::kBlock, token, name, {body});
    }
    if (tag == "extends" || tag == "include" || tag == "import" || tag == "from") return ParseTemplateReference();
    if (tag == "print" || tag == "do") {
      Next();
      std::vector<std::uint32_t> exprs;
      while (!error_ && Current().type != TokenType::kBlockEnd) {
        if (!exprs.empty()) ExpectOp(",");
        exprs.push_back(ParseExpression(true));
      }
      return Add(NodeKind::kStatement, token, tag, std::move(exprs));
    }
    if (tag == "autoescape") {
      Next();
      const std::uint32_t expr = ParseExpression(true);
      const std::uint32_t body = ParseStatements({"endautoescape"}, true);
      return Add(NodeKind::kStatement, token, tag, {expr, body});
    }
    if (tag == "generation") {  // transformers' AssistantTracker
      Next();
      const std::uint32_t body = ParseStatements({"endgeneration"}, true);
      return Add(NodeKind::kStatement, token, tag, {body});
    }
    if (tag == "break" || tag == "continue") {  // jinja2.ext.loopcontrols
      Next();
      return Add(NodeKind::kStatement, token, tag, {});
    }
    std::string message = "Encountered unknown tag " + QuoteForMessage(tag, 40) + ".";
    if (enclosing_end_tags.size() != 0) {
      std::string looking;
      for (std::string_view end : enclosing_end_tags)
        looking += (looking.empty() ? "'" : " or '") + std::string(end) + "'";
      message += " Jinja was looking for the following tags: " + looking + ".";
    }
    Fail(std::move(message));
    return kNoNode;
  }

  std::uint32_t ParseFor() {
    const Token token = Current();
    Next();
    const std::uint32_t target = ParseAssignTarget(false, {"in"});
    if (!SkipName("in")) Fail("expected 'in', got " + Describe(Current()));
    const std::uint32_t iterable = ParseTuple(TupleOf::kNoCondition, {"recursive"}, false);
    std::uint32_t condition = kNoNode;
    if (SkipName("if")) condition = ParseExpression(true);
    SkipName("recursive");
    const std::uint32_t body = ParseStatements({"endfor", "else"}, false);
    std::uint32_t else_body = kNoNode;
    const bool has_else = IsName("else");
    Next();
    if (has_else) else_body = ParseStatements({"endfor"}, true);
    return Add(NodeKind::kFor, token, "", {target, iterable, condition, body, else_body});
  }

  std::uint32_t ParseIf() {
    const Token token = Current();
    Next();
    struct Branch {
      Token at;
      std::uint32_t condition;
      std::uint32_t body;
    };
    std::vector<Branch> branches;
    std::uint32_t else_body = kNoNode;
    Token branch_at = token;
    while (!error_) {
      const std::uint32_t condition = ParseTuple(TupleOf::kNoCondition, {}, false);
      const std::uint32_t body = ParseStatements({"elif", "else", "endif"}, false);
      branches.push_back({branch_at, condition, body});
      branch_at = Current();
      const std::string tag = Current().value;
      Next();
      if (tag == "elif") continue;
      if (tag == "else") else_body = ParseStatements({"endif"}, true);
      break;
    }
    // Innermost first, so each node follows its children.
    std::uint32_t node = else_body;
    for (auto it = branches.rbegin(); it != branches.rend(); ++it) {
      node = Add(NodeKind::kIf, it->at, "", {it->condition, it->body, node});
    }
    return node;
  }

  std::uint32_t ParseSet() {
    const Token token = Current();
    Next();
    const std::uint32_t target = ParseAssignTarget(true, {});
    if (SkipOp("=")) {
      const std::uint32_t value = ParseTuple(TupleOf::kExpression, {}, false);
      return Add(NodeKind::kSet, token, "", {target, value});
    }
    const std::uint32_t filter = IsOp("|") ? ParseFilter(kNoNode, false) : kNoNode;
    const std::uint32_t body = ParseStatements({"endset"}, true);
    return Add(NodeKind::kSetBlock, token, "", {target, body, filter});
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

  std::uint32_t ParseMacro() {
    const Token token = Current();
    Next();
    const std::string name = ExpectName();
    std::vector<std::uint32_t> params = ParseSignature();
    const std::uint32_t body = ParseStatements({"endmacro"}, true);
    params.insert(params.begin(), body);
    return Add(NodeKind::kMacro, token, name, std::move(params));
  }

  std::uint32_t ParseCallBlock() {
    const Token token = Current();
    Next();
    std::vector<std::uint32_t> params;
    if (IsOp("(")) params = ParseSignature();
    const std::uint32_t call = ParseExpression(true);
    if (!error_ && KindOf(call) != NodeKind::kCall) Fail("expected call");
    const std::uint32_t body = ParseStatements({"endcall"}, true);
    params.insert(params.begin(), {call, body});
    return Add(NodeKind::kCallBlock, token, "", std::move(params));
  }

  std::uint32_t ParseWith() {
    const Token token = Current();
    Next();
    std::vector<std::uint32_t> assignments;
    while (!error_ && Current().type != TokenType::kBlockEnd) {
      if (!assignments.empty()) ExpectOp(",");
      const Token at = Current();
      const std::uint32_t target = ParseAssignTarget(false, {});
      ExpectOp("=");
      const std::uint32_t value = ParseExpression(true);
      assignments.push_back(Add(NodeKind::kKeyword, at, "", {value, target}));
    }
    const std::uint32_t body = ParseStatements({"endwith"}, true);
    assignments.insert(assignments.begin(), body);
    return Add(NodeKind::kWith, token, "", std::move(assignments));
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
      children.push_back(ParseAssignTarget(false, {}, true));
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
        if (SkipName("as")) children.push_back(ParseAssignTarget(false, {}, true));
        if (context() || !IsOp(",")) break;
      }
    }
    return Add(NodeKind::kStatement, token, tag, std::move(children));
  }

  // ---- Expressions ----

  enum class TupleOf : std::uint8_t { kPrimary, kExpression, kNoCondition };

  // A name, `ns.attr` (with_namespace), or (unless name_only) a tuple of names.
  std::uint32_t ParseAssignTarget(bool with_namespace, std::initializer_list<std::string_view> extra_end,
                                  bool name_only = false) {
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

  [[nodiscard]] bool IsTupleEnd(std::initializer_list<std::string_view> extra_end) const {
    const Token& t = Current();
    if (t.type == TokenType::kVariableEnd || t.type == TokenType::kBlockEnd || t.type == TokenType::kEof) return true;
    if (t.type == TokenType::kOperator && t.value == ")") return true;
    return std::any_of(extra_end.begin(), extra_end.end(), [&](std::string_view name) { return IsName(name); });
  }

  std::uint32_t ParseTuple(TupleOf of, std::initializer_list<std::string_view> extra_end, bool explicit_parens) {
    const Token at = Current();
    std::vector<std::uint32_t> items;
    bool is_tuple = false;
    while (!error_) {
      if (!items.empty()) ExpectOp(",");
      if (IsTupleEnd(extra_end)) break;
      if (of == TupleOf::kPrimary) {
        items.push_back(ParsePrimary());
      } else {
        items.push_back(ParseExpression(of == TupleOf::kExpression));
      }
      if (!IsOp(",")) break;
      is_tuple = true;
    }
    if (!is_tuple) {
      if (!items.empty()) return items.front();
      if (!explicit_parens) Fail("Expected an expression, got " + Describe(Current()));
    }
    return Add(NodeKind::kTuple, at, "", std::move(items));
  }

  std::uint32_t ParseExpression(bool with_condition) { return with_condition ? ParseCondExpr() : ParseOr(); }

  std::uint32_t ParseCondExpr() {
    std::uint32_t expr = ParseOr();
    while (!error_ && IsName("if")) {
      const Token at = Current();
      Next();
      const std::uint32_t condition = ParseOr();
      std::uint32_t otherwise = kNoNode;
      if (SkipName("else")) {
        const NestingGuard guard(*this);
        otherwise = ParseCondExpr();
      }
      expr = Add(NodeKind::kCondExpr, at, "", {expr, condition, otherwise});
    }
    return expr;
  }

  std::uint32_t Binary(const Token& at, std::string op, std::uint32_t left, std::uint32_t right) {
    return Add(NodeKind::kBinary, at, std::move(op), {left, right});
  }

  std::uint32_t ParseOr() {
    return LeftAssociative(
        {"or"}, [this] { return ParseAnd(); }, Spelled::kKeyword);
  }

  std::uint32_t ParseAnd() {
    return LeftAssociative(
        {"and"}, [this] { return ParseNot(); }, Spelled::kKeyword);
  }

  std::uint32_t ParseNot() {
    if (IsName("not")) {
      const Token at = Current();
      Next();
      const NestingGuard guard(*this);
      return Add(NodeKind::kUnary, at, "not", {ParseNot()});
    }
    return ParseCompare();
  }

  std::uint32_t ParseCompare() {
    std::uint32_t left = ParseMath1();
    while (!error_) {
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
        break;
      }
      left = Binary(at, std::move(op), left, ParseMath1());
    }
    return left;
  }

  // How a binary operator is written: an operator token (+, ~) or a keyword (and, or).
  enum class Spelled : std::uint8_t { kOperator, kKeyword };

  template <class Operand>
  std::uint32_t LeftAssociative(std::initializer_list<std::string_view> ops, Operand operand,
                                Spelled spelled = Spelled::kOperator) {
    std::uint32_t left = operand();
    while (!error_) {
      const auto op = std::find_if(ops.begin(), ops.end(), [&](std::string_view o) {
        return spelled == Spelled::kKeyword ? IsName(o) : IsOp(o);
      });
      if (op == ops.end()) break;
      const Token at = Current();
      Next();
      left = Binary(at, std::string(*op), left, operand());
    }
    return left;
  }

  std::uint32_t ParseMath1() {
    return LeftAssociative({"+", "-"}, [this] { return ParseConcat(); });
  }
  std::uint32_t ParseConcat() {
    return LeftAssociative({"~"}, [this] { return ParseMath2(); });
  }
  std::uint32_t ParseMath2() {
    return LeftAssociative({"*", "/", "//", "%"}, [this] { return ParsePow(); });
  }
  std::uint32_t ParsePow() {
    return LeftAssociative({"**"}, [this] { return ParseUnary(true); });
  }

  std::uint32_t ParseUnary(bool with_filter) {
    std::uint32_t node = kNoNode;
    if (IsOp("-") || IsOp("+")) {
      const Token at = Current();
      Next();
      const NestingGuard guard(*this);
      node = Add(NodeKind::kUnary, at, at.value, {ParseUnary(false)});
    } else {
      node = ParsePrimary();
    }
    node = ParsePostfix(node);
    if (with_filter) node = ParseFilterExpr(node);
    return node;
  }

  std::uint32_t ParsePrimary() {
    const Token token = Current();
    switch (token.type) {
      case TokenType::kName: {
        Next();
        const std::string& v = token.value;
        if (v == "true" || v == "false" || v == "True" || v == "False" || v == "none" || v == "None") {
          return Add(NodeKind::kConstant, token, v, {});
        }
        return Add(NodeKind::kName, token, v, {});
      }
      case TokenType::kString: {
        std::string value = token.value;
        Next();
        while (!error_ && Current().type == TokenType::kString) {  // adjacent literals join
          value += Current().value;
          Next();
        }
        return Add(NodeKind::kString, token, std::move(value), {});
      }
      case TokenType::kInteger:
      case TokenType::kFloat:
        Next();
        return Add(NodeKind::kNumber, token, token.value, {});
      case TokenType::kOperator:
        if (token.value == "(") {
          Next();
          const NestingGuard guard(*this);
          const std::uint32_t inner = ParseTuple(TupleOf::kExpression, {}, true);
          ExpectOp(")");
          return inner;
        }
        if (token.value == "[") return ParseList();
        if (token.value == "{") return ParseDict();
        break;
      default:
        break;
    }
    Fail("unexpected " + Describe(token));
    return kNoNode;
  }

  std::uint32_t ParseList() {
    const Token at = Current();
    Next();
    const NestingGuard guard(*this);
    std::vector<std::uint32_t> items;
    while (!error_ && !IsOp("]")) {
      if (!items.empty()) ExpectOp(",");
      if (IsOp("]")) break;
      items.push_back(ParseExpression(true));
    }
    ExpectOp("]");
    return Add(NodeKind::kList, at, "", std::move(items));
  }

  std::uint32_t ParseDict() {
    const Token at = Current();
    Next();
    const NestingGuard guard(*this);
    std::vector<std::uint32_t> items;
    while (!error_ && !IsOp("}")) {
      if (!items.empty()) ExpectOp(",");
      if (IsOp("}")) break;
      items.push_back(ParseExpression(true));
      ExpectOp(":");
      items.push_back(ParseExpression(true));
    }
    ExpectOp("}");
    return Add(NodeKind::kDict, at, "", std::move(items));
  }

  std::uint32_t ParsePostfix(std::uint32_t node) {
    while (!error_) {
      if (IsOp(".") || IsOp("[")) {
        node = ParseSubscript(node);
      } else if (IsOp("(")) {
        node = ParseCall(node);
      } else {
        break;
      }
    }
    return node;
  }

  std::uint32_t ParseFilterExpr(std::uint32_t node) {
    while (!error_) {
      if (IsOp("|")) {
        node = ParseFilter(node, false);
      } else if (IsName("is")) {
        node = ParseTest(node);
      } else if (IsOp("(")) {
        node = ParseCall(node);
      } else {
        break;
      }
    }
    return node;
  }

  std::uint32_t ParseSubscript(std::uint32_t object) {
    const Token token = Current();
    Next();
    if (token.value == ".") {
      const Token attr = Current();
      Next();
      if (attr.type == TokenType::kName) return Add(NodeKind::kGetattr, attr, attr.value, {object});
      if (attr.type == TokenType::kInteger) {
        const std::uint32_t index = Add(NodeKind::kNumber, attr, attr.value, {});
        return Add(NodeKind::kGetitem, attr, "", {object, index});
      }
      Fail("expected name or number");
      return kNoNode;
    }
    const NestingGuard guard(*this);
    std::vector<std::uint32_t> args;
    while (!error_ && !IsOp("]")) {
      if (!args.empty()) ExpectOp(",");
      args.push_back(ParseSubscribed());
    }
    ExpectOp("]");
    const std::uint32_t index = args.size() == 1 ? args.front() : Add(NodeKind::kTuple, token, "", std::move(args));
    return Add(NodeKind::kGetitem, token, "", {object, index});
  }

  std::uint32_t ParseSubscribed() {
    const Token at = Current();
    std::vector<std::uint32_t> parts;
    if (IsOp(":")) {
      Next();
      parts.push_back(kNoNode);
    } else {
      const std::uint32_t node = ParseExpression(true);
      if (!IsOp(":")) return node;
      Next();
      parts.push_back(node);
    }
    const auto ends = [&] { return IsOp("]") || IsOp(","); };
    if (IsOp(":") || ends()) {
      parts.push_back(kNoNode);
    } else {
      parts.push_back(ParseExpression(true));
    }
    if (IsOp(":")) {
      Next();
      parts.push_back(ends() ? kNoNode : ParseExpression(true));
    } else {
      parts.push_back(kNoNode);
    }
    return Add(NodeKind::kSlice, at, "", std::move(parts));
  }

  // The arguments of a call, appended to `args`.
  void ParseCallArgs(std::vector<std::uint32_t>& args) {
    const NestingGuard guard(*this);
    ExpectOp("(");
    bool require_comma = false;
    bool keywords = false;
    bool dynamic_args = false;
    bool dynamic_kwargs = false;
    const auto ensure = [&](bool ok) {
      if (!ok) Fail("invalid syntax for function call expression");
    };
    while (!error_ && !IsOp(")")) {
      if (require_comma) {
        ExpectOp(",");
        if (IsOp(")")) break;
      }
      const Token at = Current();
      if (IsOp("*")) {
        ensure(!dynamic_args && !dynamic_kwargs);
        Next();
        args.push_back(Add(NodeKind::kStarArgs, at, "", {ParseExpression(true)}));
        dynamic_args = true;
      } else if (IsOp("**")) {
        ensure(!dynamic_kwargs);
        Next();
        args.push_back(Add(NodeKind::kStarKwargs, at, "", {ParseExpression(true)}));
        dynamic_kwargs = true;
      } else if (at.type == TokenType::kName && Look().type == TokenType::kOperator && Look().value == "=") {
        ensure(!dynamic_kwargs);
        Next();
        Next();
        args.push_back(Add(NodeKind::kKeyword, at, at.value, {ParseExpression(true)}));
        keywords = true;
      } else {
        ensure(!dynamic_args && !dynamic_kwargs && !keywords);
        args.push_back(ParseExpression(true));
      }
      require_comma = true;
    }
    ExpectOp(")");
  }

  std::uint32_t ParseCall(std::uint32_t callee) {
    const Token at = Current();
    std::vector<std::uint32_t> children{callee};
    ParseCallArgs(children);
    return Add(NodeKind::kCall, at, "", std::move(children));
  }

  std::string DottedName() {
    std::string name = ExpectName();
    while (!error_ && IsOp(".")) {
      Next();
      name += "." + ExpectName();
    }
    return name;
  }

  std::uint32_t ParseFilter(std::uint32_t operand, bool start_inline) {
    while (!error_ && (IsOp("|") || start_inline)) {
      if (!start_inline) Next();
      start_inline = false;
      const Token at = Current();
      std::string name = DottedName();
      std::vector<std::uint32_t> children{operand};
      if (IsOp("(")) ParseCallArgs(children);
      operand = Add(NodeKind::kFilter, at, std::move(name), std::move(children));
    }
    return operand;
  }

  std::uint32_t ParseTest(std::uint32_t operand) {
    const Token at = Current();
    Next();  // is
    const bool negated = SkipName("not");
    std::string name = DottedName();
    std::vector<std::uint32_t> children{operand};
    const Token& next = Current();
    if (IsOp("(")) {
      ParseCallArgs(children);
    } else if ((next.type == TokenType::kName || next.type == TokenType::kString || next.type == TokenType::kInteger ||
                next.type == TokenType::kFloat || IsOp("(") || IsOp("[") || IsOp("{")) &&
               !IsName("else") && !IsName("or") && !IsName("and")) {
      if (IsName("is")) {
        Fail("You cannot chain multiple tests with is");
        return kNoNode;
      }
      children.push_back(ParsePostfix(ParsePrimary()));
    }
    const std::uint32_t test = Add(NodeKind::kTest, at, std::move(name), std::move(children));
    return negated ? Add(NodeKind::kUnary, at, "not", {test}) : test;
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  std::vector<Node> nodes_;
  std::size_t depth_ = 0;
  std::optional<SyntaxError> error_;
  Token eof_;
};

// The parser recurses once per nesting level (at most kMaxNesting, a few frames each: at most
// about 256 KiB at the bound), so it runs on a thread with a stack of its own: the caller's stack
// (a small thread's, `ulimit -s`) never decides whether a template can be read.
constexpr std::size_t kParserStackBytes = std::size_t{8} << 20;

Template ParseOnItsOwnStack(std::vector<Token> tokens) {
  struct Work {
    std::vector<Token> tokens;
    Template out;
    std::exception_ptr failure;
  } work{std::move(tokens), {}, nullptr};
  pthread_attr_t attributes;
  if (int error = pthread_attr_init(&attributes); error != 0) throw std::system_error(error, std::generic_category());
  const std::unique_ptr<pthread_attr_t, int (*)(pthread_attr_t*)> owned(&attributes, &pthread_attr_destroy);
  if (int error = pthread_attr_setstacksize(&attributes, kParserStackBytes); error != 0) {
    throw std::system_error(error, std::generic_category(), "parser stack");
  }
  const auto run = [](void* argument) -> void* {
    auto& w = *static_cast<Work*>(argument);
    try {
      w.out = Parser(std::move(w.tokens)).Run();
    } catch (...) {
      w.failure = std::current_exception();
    }
    return nullptr;
  };
  pthread_t thread{};
  if (int error = pthread_create(&thread, &attributes, run, &work); error != 0) {
    throw std::system_error(error, std::generic_category(), "parser thread");
  }
  pthread_join(thread, nullptr);
  if (work.failure) std::rethrow_exception(work.failure);
  return std::move(work.out);
}

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
  return ParseOnItsOwnStack(std::move(tokens));
}

}  // namespace ckpt::jinja
