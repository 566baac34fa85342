#include "lib/json/json_value.h"

#include <algorithm>
#include <cstring>

#include "lib/core/text.h"

namespace ckpt::json {

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "a boolean";
    case Type::kNumber:
      return "a number";
    case Type::kString:
      return "a string";
    case Type::kArray:
      return "an array";
    case Type::kObject:
      return "an object";
  }
  return "a value";
}

namespace {

std::uint32_t WordOf(const Document* doc, std::uint32_t index) { return doc->tape()[index]; }

}  // namespace

std::uint32_t Document::Next(std::uint32_t index) const {
  const std::uint32_t word = tape_[index];
  const auto type = static_cast<Type>(word & kTypeMask);
  return (type == Type::kArray || type == Type::kObject) ? tape_[index + 1] : index + 1;
}

void Document::ReleaseBefore(std::uint32_t tape_index, std::uint64_t text_offset) {
  ReleasePages(tape_.data(), std::min<std::size_t>(tape_index, tape_.size()) * sizeof(std::uint32_t));
  text_.ReleasePrefix(static_cast<std::size_t>(text_offset));
}

std::string_view Document::PlainString(std::uint64_t offset) const {
  const std::size_t begin = static_cast<std::size_t>(offset) + 1;
  const std::string_view text = text_.view();
  return text.substr(begin, text.find('"', begin) - begin);
}

std::string_view Document::StringAt(std::uint32_t index, std::string& scratch) const {
  const std::uint32_t word = tape_[index];
  const std::uint64_t offset = word >> kOffsetShift;
  if ((word & kFlag) == 0) return PlainString(offset);
  DecodeString(offset, true, scratch);
  return scratch;
}

// The parser validated the token, so this decoder need not check anything.
void Document::DecodeString(std::uint64_t offset, bool escaped, std::string& out) const {
  const std::string_view text = text_.view();
  out.clear();
  if (!escaped) {
    out.assign(PlainString(offset));
    return;
  }
  std::size_t i = static_cast<std::size_t>(offset) + 1;
  for (;;) {
    const char c = text[i];
    if (c == '"') return;
    if (c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    const char e = text[i + 1];
    i += 2;
    switch (e) {
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        auto hex4 = [&](std::size_t at) {
          std::uint32_t v = 0;
          for (std::size_t k = 0; k < 4; ++k) v = v * 16 + static_cast<std::uint32_t>(HexDigit(text[at + k]));
          return v;
        };
        std::uint32_t cp = hex4(i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          const std::uint32_t low = hex4(i + 2);
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(out, cp);
        break;
      }
      default:
        out.push_back(e);
        break;  // '"', '\\', '/'
    }
  }
}

Type Value::type() const {
  if (doc_ == nullptr || index_ >= doc_->tape().size()) return Type::kNull;
  return static_cast<Type>(WordOf(doc_, index_) & Document::kTypeMask);
}

std::uint64_t Value::offset() const {
  if (doc_ == nullptr || index_ >= doc_->tape().size()) return 0;
  return WordOf(doc_, index_) >> Document::kOffsetShift;
}

bool Value::boolean() const { return is(Type::kBool) && (WordOf(doc_, index_) & Document::kFlag) != 0; }

std::string Value::String() const {
  std::string out;
  if (is(Type::kString)) doc_->DecodeString(offset(), (WordOf(doc_, index_) & Document::kFlag) != 0, out);
  return out;
}

std::string_view Value::Raw() const {
  if (doc_ == nullptr || index_ >= doc_->tape().size()) return "null";
  const std::string_view text = doc_->text();
  const auto begin = static_cast<std::size_t>(offset());
  std::size_t end = begin;
  switch (type()) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return boolean() ? "true" : "false";
    case Type::kNumber:
      while (end < text.size() && std::string_view("0123456789+-.eE").find(text[end]) != std::string_view::npos) ++end;
      return text.substr(begin, end - begin);
    case Type::kString:
      ++end;
      while (text[end] != '"') end += (text[end] == '\\') ? std::size_t{2} : std::size_t{1};
      return text.substr(begin, end + 1 - begin);
    case Type::kArray:
    case Type::kObject:
      break;
  }
  return "";
}

std::string Value::Describe() const {
  if (is(Type::kNumber)) return "the number " + std::string(Raw());
  return std::string(TypeName(type()));
}

std::optional<std::uint64_t> Value::AsInteger() const {
  if (!is(Type::kNumber)) return std::nullopt;
  const std::string_view text = Raw();
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // '-', '.', 'e', 'E' are not integers
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<std::string> Value::FindString(std::string_view key) const {
  auto v = Find(key);
  if (!v || !v->is(Type::kString)) return std::nullopt;
  return v->String();
}

std::optional<Value> Value::Find(std::string_view key) const {
  if (!is(Type::kObject)) return std::nullopt;
  const std::uint32_t end = doc_->tape()[index_ + 1];
  std::string scratch;
  for (std::uint32_t at = index_ + 2; at < end; at = doc_->Next(at + 1)) {
    const std::uint32_t word = WordOf(doc_, at);
    const std::uint64_t key_offset = word >> Document::kOffsetShift;
    if ((word & Document::kFlag) == 0) {
      if (doc_->PlainString(key_offset) == key) return Value(doc_, at + 1);
    } else {
      doc_->DecodeString(key_offset, true, scratch);
      if (scratch == key) return Value(doc_, at + 1);
    }
  }
  return std::nullopt;
}

std::size_t Value::Size() const {
  std::size_t n = 0;
  if (is(Type::kArray)) {
    for (auto it = Items().begin(); it != Items().end(); ++it) ++n;
  } else if (is(Type::kObject)) {
    const std::uint32_t end = doc_->tape()[index_ + 1];
    for (std::uint32_t at = index_ + 2; at < end; at = doc_->Next(at + 1)) ++n;
  }
  return n;
}

Value::ItemIterator& Value::ItemIterator::operator++() {
  at_ = doc_->Next(at_);
  return *this;
}

Member Value::MemberIterator::operator*() const {
  Member m;
  const std::uint32_t word = WordOf(doc_, at_);
  m.key_offset = word >> Document::kOffsetShift;
  doc_->DecodeString(m.key_offset, (word & Document::kFlag) != 0, m.key);
  m.value = Value(doc_, at_ + 1);
  return m;
}

Value::MemberIterator& Value::MemberIterator::operator++() {
  at_ = doc_->Next(at_ + 1);
  return *this;
}

Value::Range<Value::ItemIterator> Value::Items() const {
  if (!is(Type::kArray)) return {};
  return {ItemIterator(doc_, index_ + 2), ItemIterator(doc_, doc_->tape()[index_ + 1])};
}

Value::Range<Value::MemberIterator> Value::Members() const {
  if (!is(Type::kObject)) return {};
  return {MemberIterator(doc_, index_ + 2), MemberIterator(doc_, doc_->tape()[index_ + 1])};
}

namespace {

// Advances `pos` over text[from, to): the one definition of how bytes move a position.
void Advance(std::string_view text, std::size_t from, std::size_t to, LineColumn& pos) {
  // Whole lines are skipped with memchr: only the bytes after the last newline move the column.
  for (const char* newline = nullptr;
       from < to && (newline = static_cast<const char*>(std::memchr(text.data() + from, '\n', to - from)));) {
    ++pos.line;
    pos.column = 1;
    from = static_cast<std::size_t>(newline - text.data()) + 1;
  }
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
