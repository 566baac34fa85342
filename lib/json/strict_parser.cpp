#include "lib/json/strict_parser.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/core/text.h"

namespace ckpt::json {
namespace {

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One open array or object while parsing.
struct Frame {
  std::uint32_t start = 0;     // tape index of the container's first word
  std::uint32_t items = 0;     // values attached so far
  std::uint32_t last_key = 0;  // objects: tape index of the pending key
};

class Parser {
 public:
  Parser(Document& doc, const ParseOptions& options)
      : doc_(doc), text_(doc.text()), options_(options), tape_(doc.mutable_tape()) {}

  std::optional<ParseError> Run() {
    tape_.clear();
    doc_.duplicates.clear();
    doc_.duplicates_dropped = 0;
    if (text_.size() > kMaxDocumentBytes) {
      return ParseError{ParseError::Kind::kTooLarge, "document larger than the parser's limit", 0};
    }
    // Depth is judged first, then UTF-8, then syntax. The parser refuses nesting beyond the
    // bound itself, so the separate scan for depth runs only when something is wrong.
    if (auto bad = FindInvalidUtf8(text_)) {
      return TooDeep().value_or(ParseError{ParseError::Kind::kInvalidUtf8, "invalid UTF-8", *bad});
    }
    // Each value takes at least one byte per tape word, so this bound is never exceeded
    // and the tape never reallocates; untouched reserved pages cost no memory.
    tape_.reserve(text_.size() + 2);
    SkipWhitespace();
    doc_.value_begin = pos_;
    if (!ParseValue()) {
      tape_.clear();
      return TooDeep().value_or(std::move(error_));
    }
    doc_.value_end = pos_;
    SkipWhitespace();
    if (pos_ != text_.size()) {
      tape_.clear();
      return TooDeep().value_or(ParseError{ParseError::Kind::kSyntax, "unexpected data after the JSON value", pos_});
    }
    return std::nullopt;
  }

 private:
  [[nodiscard]] std::optional<ParseError> TooDeep() const {
    if (auto deep = FindExcessiveNesting(text_, options_.max_depth)) {
      return ParseError{ParseError::Kind::kTooDeep,
                        "nesting deeper than " + std::to_string(options_.max_depth) + " levels", *deep};
    }
    return std::nullopt;
  }

  bool Fail(std::string message, std::size_t at) {
    error_ = ParseError{ParseError::Kind::kSyntax, std::move(message), at};
    return false;
  }

  void SkipWhitespace() {
    while (pos_ < text_.size() && IsWhitespace(text_[pos_])) ++pos_;
  }

  std::uint32_t Push(Type type, std::size_t offset, bool flag = false) {
    const auto index = static_cast<std::uint32_t>(tape_.size());
    tape_.push_back(static_cast<std::uint32_t>(offset << Document::kOffsetShift) | static_cast<std::uint32_t>(type) |
                    (flag ? Document::kFlag : 0));
    return index;
  }

  // Parses one complete value (scalars directly, containers with an explicit stack).
  bool ParseValue() {
    for (;;) {
      SkipWhitespace();
      if (pos_ >= text_.size()) return Fail("unexpected end of input, expected a value", pos_);
      const char c = text_[pos_];
      if (c == '{' || c == '[') {
        if (stack_.size() >= options_.max_depth) {
          return Fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels", pos_);
        }
        Frame frame;
        frame.start = Push(c == '{' ? Type::kObject : Type::kArray, pos_);
        tape_.push_back(0);  // end index, set when the container closes
        ++pos_;
        SkipWhitespace();
        const char close = (c == '{') ? '}' : ']';
        if (pos_ < text_.size() && text_[pos_] == close) {
          ++pos_;
          tape_[frame.start + 1] = static_cast<std::uint32_t>(tape_.size());  // empty: a finished value
        } else {
          stack_.push_back(frame);
          if (c == '{' && !ParseKey(stack_.back())) return false;
          continue;  // parse the first element
        }
      } else if (!ParseScalar()) {
        return false;
      }
      // A value just finished: count it and close as many containers as end here.
      for (;;) {
        if (stack_.empty()) return true;
        Frame& top = stack_.back();
        ++top.items;
        SkipWhitespace();
        if (pos_ >= text_.size()) return Fail("unexpected end of input inside a container", pos_);
        const char next = text_[pos_];
        const bool is_object = Type(tape_[top.start] & Document::kTypeMask) == Type::kObject;
        if (next == ',') {
          ++pos_;
          if (is_object) {
            SkipWhitespace();
            if (!ParseKey(top)) return false;
          }
          break;  // parse the next value
        }
        const char close = is_object ? '}' : ']';
        if (next != close) return Fail(std::string("expected ',' or '") + close + "'", pos_);
        ++pos_;
        tape_[top.start + 1] = static_cast<std::uint32_t>(tape_.size());
        if (is_object) FindDuplicates();
        stack_.pop_back();
      }
    }
  }

  bool ParseKey(Frame& frame) {
    SkipWhitespace();
    if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a string key", pos_);
    if (!ParseString()) return false;
    frame.last_key = static_cast<std::uint32_t>(tape_.size() - 1);
    SkipWhitespace();
    if (pos_ >= text_.size() || text_[pos_] != ':') return Fail("expected ':' after an object key", pos_);
    ++pos_;
    return true;
  }

  std::uint64_t OffsetOf(std::uint32_t index) const { return tape_[index] >> Document::kOffsetShift; }
  bool Escaped(std::uint32_t index) const { return (tape_[index] & Document::kFlag) != 0; }

  // Decoded key `index`; plain keys are views into the text (no copy), others use `scratch`.
  std::string_view KeyText(std::uint32_t index, std::string& scratch) const { return doc_.StringAt(index, scratch); }

  // Compares two keys by their decoded bytes. Keys without escapes (nearly all) compare
  // straight from the text, stopping at the first difference or closing quote: no length
  // scan, no copy, which matters for an object of millions of keys.
  int CompareKeys(std::uint32_t a, std::uint32_t b) {
    if (!Escaped(a) && !Escaped(b)) {
      const char* p = text_.data() + OffsetOf(a) + 1;
      const char* q = text_.data() + OffsetOf(b) + 1;
      for (;; ++p, ++q) {
        const bool end_p = *p == '"';
        const bool end_q = *q == '"';
        if (end_p || end_q) return end_p == end_q ? 0 : (end_p ? -1 : 1);
        if (*p != *q) return static_cast<unsigned char>(*p) < static_cast<unsigned char>(*q) ? -1 : 1;
      }
    }
    return KeyText(a, scratch_a_).compare(KeyText(b, scratch_b_));
  }

  // FNV-1a of a key's decoded bytes (plain keys hashed straight from the text).
  std::uint64_t HashKey(std::uint32_t index) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    const auto mix = [&hash](char c) { hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL; };
    if (!Escaped(index)) {
      for (const char* p = text_.data() + OffsetOf(index) + 1; *p != '"'; ++p) mix(*p);
    } else {
      for (const char c : KeyText(index, scratch_a_)) mix(c);
    }
    return hash;
  }

  // Duplicate keys in O(n log n) whatever the keys: the (hash, position) pairs are sorted as
  // integers and only keys with equal hashes are compared, sorted by their text (so crafted
  // collisions cost a sort, never n^2). Memory: one pair per member. Duplicates are recorded
  // in the order of their keys' text, then position, whatever the hashes.
  void FindDuplicates() {
    const Frame& top = stack_.back();
    if (top.items < 2) return;
    hashed_.clear();
    const std::uint32_t end = tape_[top.start + 1];
    for (std::uint32_t at = top.start + 2; at < end; at = doc_.Next(at + 1)) hashed_.emplace_back(HashKey(at), at);
    std::sort(hashed_.begin(), hashed_.end());
    const auto by_text = [&](std::uint32_t a, std::uint32_t b) {
      const int order = CompareKeys(a, b);
      return order != 0 ? order < 0 : a < b;
    };
    pairs_.clear();
    for (std::size_t run = 0; run < hashed_.size();) {
      std::size_t run_end = run + 1;
      while (run_end < hashed_.size() && hashed_[run_end].first == hashed_[run].first) ++run_end;
      if (run_end - run > 1) {
        keys_.clear();
        for (std::size_t i = run; i < run_end; ++i) keys_.push_back(hashed_[i].second);
        std::sort(keys_.begin(), keys_.end(), by_text);
        for (std::size_t i = 1; i < keys_.size(); ++i) {
          if (CompareKeys(keys_[i - 1], keys_[i]) == 0) pairs_.emplace_back(keys_[i - 1], keys_[i]);
        }
      }
      run = run_end;
    }
    std::sort(pairs_.begin(), pairs_.end(), [&](const auto& a, const auto& b) { return by_text(a.second, b.second); });
    for (const auto& [first, second] : pairs_) {
      if (doc_.duplicates.size() >= Document::kMaxRecordedDuplicates) {
        ++doc_.duplicates_dropped;
        continue;
      }
      doc_.duplicates.push_back(
          DuplicateKey{PointerOfTop(), std::string(KeyText(second, scratch_b_)), OffsetOf(first), OffsetOf(second)});
    }
  }

  // JSON Pointer of the innermost open container.
  std::string PointerOfTop() const {
    std::string pointer;
    std::string scratch;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& parent = stack_[i];
      pointer += '/';
      if (Type(tape_[parent.start] & Document::kTypeMask) == Type::kArray) {
        pointer += std::to_string(parent.items);
      } else {
        pointer += EscapePointerToken(KeyText(parent.last_key, scratch));
      }
    }
    return pointer;
  }

  bool ParseScalar() {
    const char c = text_[pos_];
    if (c == '"') return ParseString();
    if (c == '-' || (c >= '0' && c <= '9')) {
      Push(Type::kNumber, pos_);
      return ParseNumber();
    }
    for (auto [word, type, flag] : {std::tuple{std::string_view("true"), Type::kBool, true},
                                    std::tuple{std::string_view("false"), Type::kBool, false},
                                    std::tuple{std::string_view("null"), Type::kNull, false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        Push(type, pos_, flag);
        pos_ += word.size();
        return true;
      }
    }
    return Fail("unexpected character, expected a value", pos_);
  }

  bool ParseNumber() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
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
    return true;
  }

  bool IsHex4(std::size_t at) const {
    if (text_.size() < at || text_.size() - at < 4) return false;
    for (std::size_t k = 0; k < 4; ++k) {
      const char h = text_[at + k];
      if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return false;
    }
    return true;
  }

  std::uint32_t Hex4(std::size_t at) const {
    std::uint32_t value = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char h = text_[at + k];
      value = value * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return value;
  }

  // The first quote, backslash or control byte at or after `at` (the text's size if none):
  // string bytes are skipped eight at a time.
  [[nodiscard]] std::size_t NextSpecial(std::size_t at) const {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
    while (text_.size() - at >= sizeof(std::uint64_t)) {
      std::uint64_t word = 0;
      std::memcpy(&word, text_.data() + at, sizeof word);
      const std::uint64_t quote = word ^ (kOnes * '"');
      const std::uint64_t backslash = word ^ (kOnes * '\\');
      // A zero byte in `quote` or `backslash`, or a byte below 0x20 in `word` (the usual
      // has-zero-byte and has-less-than tests: no false negatives).
      const std::uint64_t found =
          (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | ((word - kOnes * 0x20) & ~word)) & kHighs;
      if (found != 0) break;
      at += sizeof word;
    }
    while (at < text_.size()) {
      const auto c = static_cast<unsigned char>(text_[at]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      ++at;
    }
    return at;
  }

  // Validates a string token and pushes it; decoding happens on demand (Document::DecodeString).
  bool ParseString() {
    const std::size_t start = pos_;
    ++pos_;  // opening quote
    bool escaped = false;
    for (;;) {
      pos_ = NextSpecial(pos_);
      if (pos_ >= text_.size()) return Fail("unterminated string", start);
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        Push(Type::kString, start, escaped);
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Fail("unescaped control character in a string", pos_);
      if (c != '\\') {
        ++pos_;
        continue;
      }
      escaped = true;
      const std::size_t escape_at = pos_;
      ++pos_;
      if (pos_ >= text_.size()) return Fail("unterminated escape", escape_at);
      const char e = text_[pos_++];
      if (std::strchr("\"\\/bfnrt", e) != nullptr && e != '\0') continue;
      if (e != 'u') return Fail("invalid escape sequence", escape_at);
      if (!IsHex4(pos_)) return Fail("invalid \\u escape", escape_at);
      const std::uint32_t unit = Hex4(pos_);
      pos_ += 4;
      if (unit >= 0xDC00 && unit <= 0xDFFF) return Fail("lone low surrogate in \\u escape", escape_at);
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (text_.substr(pos_, 2) != "\\u") return Fail("lone high surrogate in \\u escape", escape_at);
        if (!IsHex4(pos_ + 2)) return Fail("high surrogate not followed by a low surrogate", escape_at);
        const std::uint32_t low = Hex4(pos_ + 2);
        if (low < 0xDC00 || low > 0xDFFF) return Fail("high surrogate not followed by a low surrogate", escape_at);
        pos_ += 6;
      }
    }
  }

  Document& doc_;
  std::string_view text_;
  ParseOptions options_;
  std::vector<std::uint32_t>& tape_;
  std::vector<Frame> stack_;
  std::vector<std::uint32_t> keys_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> hashed_;  // (key hash, tape index)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;   // duplicates: (earlier, later)
  std::string scratch_a_;
  std::string scratch_b_;
  std::size_t pos_ = 0;
  ParseError error_;
};

}  // namespace

std::optional<std::uint64_t> FindExcessiveNesting(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      // A string ends at the first quote after an even run of backslashes; memchr finds the
      // candidates, so string bytes are not looked at one by one.
      for (;;) {
        const void* quote = std::memchr(text.data() + i + 1, '"', text.size() - i - 1);
        if (quote == nullptr) return std::nullopt;  // unterminated: the parser says so
        i = static_cast<std::size_t>(static_cast<const char*>(quote) - text.data());
        std::size_t backslashes = 0;
        while (text[i - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<ParseError> Parse(Document& doc, const ParseOptions& options) { return Parser(doc, options).Run(); }

ParseResult ParseStrict(std::string_view text, const ParseOptions& options) {
  Document doc{std::string(text)};
  if (auto error = Parse(doc, options)) return std::move(*error);
  return doc;
}

}  // namespace ckpt::json
