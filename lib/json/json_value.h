// The JSON document model used by every reader: values keep their byte offset so a
// finding can point at the token (line and column for people and SARIF, JSON Pointer
// for scripts), and numbers keep their raw token so integer rules can be exact.
//
// Memory is bounded by design (a 100 MB hostile header must not cost gigabytes): a
// Document owns its text and one flat "tape" of 32-bit words in document order. A scalar
// is one word (type, flag and the token's byte offset); an array or object is two words,
// the second holding the index one past its subtree. Strings and numbers are decoded from
// the text on demand. So the tape never exceeds 4 bytes per byte of text, and in practice
// is at most 2.7x it (`[[],[],...]`); a Value is only a view (document, tape index).
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/text_buffer.h"

namespace ckpt::json {

enum class Type : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

/// Human name of a JSON type for messages ("a string", "an array", ...).
std::string_view TypeName(Type type);

/// Largest document the tape can address (28-bit offsets); readers cap far below.
inline constexpr std::uint64_t kMaxDocumentBytes = (std::uint64_t{1} << 28) - 1;
/// serde_json's recursion limit, which the reference safetensors reader uses: 127 levels
/// of arrays and objects are accepted, entering the 128th is refused.
inline constexpr std::size_t kMaxNestingDepth = 127;

class Document;
struct Member;

/// A view of one value of a Document. Valid while the Document lives and is not moved.
class Value {
 public:
  Value() = default;
  Value(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}

  [[nodiscard]] Type type() const;
  [[nodiscard]] bool is(Type t) const { return type() == t; }
  /// Byte offset of the token's first byte in the document.
  [[nodiscard]] std::uint64_t offset() const;
  [[nodiscard]] bool boolean() const;
  /// kString: the decoded UTF-8 text; anything else: empty.
  [[nodiscard]] std::string String() const;
  /// kNumber, kBool, kNull: the token as written; kString: the token with its quotes.
  [[nodiscard]] std::string_view Raw() const;
  /// "the number 1.0" for numbers, else the type name: for "X is ..." messages.
  [[nodiscard]] std::string Describe() const;
  /// The value as a JSON integer of the spec: a number token with no fraction, exponent
  /// or sign that fits in 64 unsigned bits. nullopt for anything else.
  [[nodiscard]] std::optional<std::uint64_t> AsInteger() const;

  /// kObject: the first member named `key` (compared decoded), or nullopt.
  [[nodiscard]] std::optional<Value> Find(std::string_view key) const;
  /// kObject: the decoded string of the first member named `key`, when it is a string.
  [[nodiscard]] std::optional<std::string> FindString(std::string_view key) const;
  /// kArray/kObject: number of items or members (walks them: O(n)).
  [[nodiscard]] std::size_t Size() const;

  class ItemIterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Value;
    ItemIterator() = default;
    ItemIterator(const Document* doc, std::uint32_t at) : doc_(doc), at_(at) {}
    Value operator*() const { return Value(doc_, at_); }
    ItemIterator& operator++();
    ItemIterator operator++(int) {
      ItemIterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const ItemIterator& o) const { return at_ == o.at_; }

   private:
    const Document* doc_ = nullptr;
    std::uint32_t at_ = 0;
  };
  class MemberIterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Member;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Member;
    MemberIterator() = default;
    MemberIterator(const Document* doc, std::uint32_t at) : doc_(doc), at_(at) {}
    Member operator*() const;  // decodes the key
    MemberIterator& operator++();
    bool operator==(const MemberIterator& o) const { return at_ == o.at_; }

   private:
    const Document* doc_ = nullptr;
    std::uint32_t at_ = 0;
  };
  template <class It>
  struct Range {
    It first;
    It last;
    It begin() const { return first; }
    It end() const { return last; }
  };
  /// kArray: the items in order (empty for other types).
  [[nodiscard]] Range<ItemIterator> Items() const;
  /// kObject: the members in document order, duplicates kept (empty for other types).
  [[nodiscard]] Range<MemberIterator> Members() const;

  [[nodiscard]] std::uint32_t tape_index() const { return index_; }

 private:
  const Document* doc_ = nullptr;
  std::uint32_t index_ = 0;
};

struct Member {
  std::string key;  ///< decoded
  std::uint64_t key_offset = 0;
  Value value;
};

/// A key that appears twice in one object. Both occurrences are kept in the Document.
struct DuplicateKey {
  std::string object_pointer;  ///< JSON Pointer of the object holding the key
  std::string key;
  std::uint64_t first_offset = 0;
  std::uint64_t second_offset = 0;
};

/// A parsed JSON text (see strict_parser.h). Move-only: Values point at it.
class Document {
 public:
  Document() = default;
  explicit Document(std::string text) : text_(std::move(text)) {}
  explicit Document(TextBuffer text) : text_(std::move(text)) {}
  Document(Document&&) = default;
  Document& operator=(Document&&) = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  [[nodiscard]] std::string_view text() const { return text_.view(); }
  /// The root value; a null Value before a successful parse.
  [[nodiscard]] Value root() const { return Value(this, 0); }
  [[nodiscard]] bool parsed() const { return !tape_.empty(); }

  /// Duplicate keys, in the order their objects close; at most kMaxRecordedDuplicates.
  std::vector<DuplicateKey> duplicates;
  std::uint64_t duplicates_dropped = 0;  ///< more duplicates than were recorded
  static constexpr std::size_t kMaxRecordedDuplicates = 1000;
  std::uint64_t value_begin = 0;  ///< offset of the root token (after leading whitespace)
  std::uint64_t value_end = 0;    ///< offset one past the root value (trailing whitespace follows)

  // Tape encoding (shared with the parser): bits 0-2 type, bit 3 flag (true for a bool
  // true, "has escapes" for a string), bits 4-31 offset. Containers: next word = end.
  static constexpr std::uint32_t kTypeMask = 0x7;
  static constexpr std::uint32_t kFlag = 0x8;
  static constexpr unsigned kOffsetShift = 4;
  [[nodiscard]] const std::vector<std::uint32_t>& tape() const { return tape_; }
  std::vector<std::uint32_t>& mutable_tape() { return tape_; }
  /// Gives back the whole pages of the tape before word `tape_index` and of the text before
  /// byte `text_offset`, for a reader that walks the root's members once, in order, and has
  /// copied what it keeps: it must never look behind them again (they read as zeros). Each
  /// call costs a system call, so readers call it every megabyte or so, not per member.
  void ReleaseBefore(std::uint32_t tape_index, std::uint64_t text_offset);
  /// Index one past the value at `index` (its subtree, for containers).
  [[nodiscard]] std::uint32_t Next(std::uint32_t index) const;
  /// Decodes the string token at `offset` into `out` (fast path when `escaped` is false).
  void DecodeString(std::uint64_t offset, bool escaped, std::string& out) const;
  /// The undecoded contents of an unescaped string token at `offset` (between the quotes).
  [[nodiscard]] std::string_view PlainString(std::uint64_t offset) const;
  /// The decoded text of the string token at tape `index` (an object key, say): a view of the
  /// text itself when it has no escapes (no copy), else decoded into `scratch`.
  [[nodiscard]] std::string_view StringAt(std::uint32_t index, std::string& scratch) const;

 private:
  TextBuffer text_;
  std::vector<std::uint32_t> tape_;
};

/// 1-based line and column. Columns count UTF-16 code units, SARIF's default column kind.
struct LineColumn {
  std::uint64_t line = 1;
  std::uint64_t column = 1;
};

/// Line and column of byte `offset` in `text` (offset past the end maps to the end).
/// O(offset): for repeated lookups in one text use PositionIndex.
LineColumn LocateOffset(std::string_view text, std::uint64_t offset);

/// Answers LocateOffset for one text in O(kStride) per lookup, whatever the text's size
/// or line lengths (a minified 100 MB header is one line), from checkpoints every kStride bytes.
class PositionIndex {
 public:
  static constexpr std::uint64_t kStride = 4096;
  PositionIndex() = default;
  explicit PositionIndex(std::string_view text);
  /// Same result as LocateOffset(text, offset) for the text the index was built from.
  [[nodiscard]] LineColumn Locate(std::string_view text, std::uint64_t offset) const;

 private:
  std::vector<LineColumn> checkpoints_;  // position after the first i * kStride bytes
};

/// RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string EscapePointerToken(std::string_view token);

}  // namespace ckpt::json
