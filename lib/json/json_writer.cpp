#include "lib/json/json_writer.h"

#include <cstdio>

namespace ckpt::json {

std::string QuoteString(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 15]);
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

namespace {

void WriteString(std::string& out, const std::string& text) { out += QuoteString(text); }

// Depth is bounded by the parser (127), so recursion is safe here.
void Write(std::string& out, const Value& v) {
  bool first = true;
  switch (v.type()) {
    case Type::kNull:
      out += "null";
      break;
    case Type::kBool:
      out += v.boolean() ? "true" : "false";
      break;
    case Type::kNumber:
      out += v.Raw();
      break;
    case Type::kString:
      WriteString(out, v.String());
      break;
    case Type::kArray:
      out.push_back('[');
      for (Value item : v.Items()) {
        if (!first) out.push_back(',');
        first = false;
        Write(out, item);
      }
      out.push_back(']');
      break;
    case Type::kObject:
      out.push_back('{');
      for (const Member& m : v.Members()) {
        if (!first) out.push_back(',');
        first = false;
        WriteString(out, m.key);
        out.push_back(':');
        Write(out, m.value);
      }
      out.push_back('}');
      break;
  }
}

}  // namespace

std::string ToCompactJson(const Value& value) {
  std::string out;
  Write(out, value);
  return out;
}

}  // namespace ckpt::json
