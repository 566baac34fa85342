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

LineColumn LocateOffset(std::string_view text, std::uint64_t offset) {
  std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size()));
  LineColumn pos;
  for (std::size_t i = 0; i < end; ++i) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((b & 0xC0) != 0x80) {
      pos.column += (b >= 0xF0) ? 2 : 1;  // a 4-byte sequence is a UTF-16 surrogate pair
    }
  }
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
