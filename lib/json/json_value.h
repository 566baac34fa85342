// The JSON document model used by every reader: values keep their byte offset so a
// finding can point at the token (line and column for people and SARIF, JSON Pointer
// for scripts), and numbers keep their raw token so integer rules can be exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::json {

enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

/// Human name of a JSON type for messages ("a string", "an array", ...).
std::string_view TypeName(Type type);

struct Member;

struct Value {
  Type type = Type::kNull;
  std::uint64_t offset = 0;     ///< byte offset of the token's first byte in the document
  bool boolean = false;         ///< kBool
  std::string text;             ///< kString: decoded UTF-8; kNumber: the raw token
  std::vector<Value> items;     ///< kArray
  std::vector<Member> members;  ///< kObject, in document order (duplicates kept)

  [[nodiscard]] bool is(Type t) const { return type == t; }
  /// First member named `key`, or nullptr.
  [[nodiscard]] const Value* Find(std::string_view key) const;
  /// The value as a JSON integer of the spec: a number token with no fraction, exponent
  /// or sign that fits in 64 unsigned bits. nullopt for anything else.
  [[nodiscard]] std::optional<std::uint64_t> AsInteger() const;
};

struct Member {
  std::string key;
  std::uint64_t key_offset = 0;
  Value value;
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
