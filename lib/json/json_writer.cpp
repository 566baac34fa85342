#include "lib/json/json_writer.h"

#include <cstdio>

namespace ckpt::json {
namespace {

void WriteString(std::string& out, const std::string& text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

// Depth is bounded by the parser (64), so recursion is safe here.
void Write(std::string& out, const Value& v) {
  switch (v.type) {
    case Type::kNull: out += "null"; break;
    case Type::kBool: out += v.boolean ? "true" : "false"; break;
    case Type::kNumber: out += v.text; break;
    case Type::kString: WriteString(out, v.text); break;
    case Type::kArray:
      out.push_back('[');
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i) out.push_back(',');
        Write(out, v.items[i]);
      }
      out.push_back(']');
      break;
    case Type::kObject:
      out.push_back('{');
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        if (i) out.push_back(',');
        WriteString(out, v.members[i].key);
        out.push_back(':');
        Write(out, v.members[i].value);
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
