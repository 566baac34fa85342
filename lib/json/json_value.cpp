#include "lib/json/json_value.h"

#include <algorithm>

namespace ckpt::json {

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kNumber: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "an array";
    case Type::kObject: return "an object";
  }
  return "a value";
}

const Value* Value::Find(std::string_view key) const {
  for (const Member& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

std::optional<std::uint64_t> Value::AsInteger() const {
  if (type != Type::kNumber || text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // '-', '.', 'e', 'E' are not integers
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

namespace {

// Advances `pos` over text[from, to): the one definition of how bytes move a position.
void Advance(std::string_view text, std::size_t from, std::size_t to, LineColumn& pos) {
  for (std::size_t i = from; i < to; ++i) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((b & 0xC0) != 0x80) {
      pos.column += (b >= 0xF0) ? 2 : 1;  // a 4-byte sequence is a UTF-16 surrogate pair
    }
  }
}

}  // namespace

LineColumn LocateOffset(std::string_view text, std::uint64_t offset) {
  LineColumn pos;
  Advance(text, 0, static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size())), pos);
  return pos;
}

PositionIndex::PositionIndex(std::string_view text) {
  LineColumn pos;
  checkpoints_.push_back(pos);
  for (std::size_t at = 0; at + kStride <= text.size(); at += kStride) {
    Advance(text, at, at + kStride, pos);
    checkpoints_.push_back(pos);
  }
}

LineColumn PositionIndex::Locate(std::string_view text, std::uint64_t offset) const {
  const auto end = static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size()));
  const std::size_t slot = std::min<std::size_t>(end / kStride, checkpoints_.empty() ? 0 : checkpoints_.size() - 1);
  LineColumn pos = checkpoints_.empty() ? LineColumn{} : checkpoints_[slot];
  Advance(text, checkpoints_.empty() ? 0 : slot * kStride, end, pos);
  return pos;
}

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace ckpt::json
