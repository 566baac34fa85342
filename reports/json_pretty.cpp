#include "reports/json_pretty.h"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include "lib/core/text.h"

namespace ckpt::reports {
namespace {

// Names from the input (file and directory names, tensor names) may hold any bytes; JSON
// text must be UTF-8. Such a string is written with each bad byte as the text \xNN, and
// for the keys that name something, the exact bytes follow as "<key>_bytes" (hex).
bool KeepsExactBytes(std::string_view key) {
  return key == "path" || key == "name" || key == "file" || key == "artifact" || key == "tensor" || key == "uri" ||
         key == "message" || key == "text";
}

void WriteString(std::ostream& out, std::string_view text) {
  out << boost::json::serialize(boost::json::string(ToValidUtf8(text)));
}

void Write(std::ostream& out, const boost::json::value& value, int indent, bool exact_bytes) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const std::string close_pad(static_cast<std::size_t>(indent), ' ');
  if (const auto* object = value.if_object()) {
    if (object->empty()) {
      out << "{}";
      return;
    }
    out << "{\n";
    bool first = true;
    for (const auto& member : *object) {
      if (!first) out << ",\n";
      first = false;
      out << pad;
      WriteString(out, member.key());
      out << ": ";
      Write(out, member.value(), indent + 2, exact_bytes);
      const boost::json::string* text = member.value().if_string();
      if (exact_bytes && text != nullptr && KeepsExactBytes(member.key()) && FindInvalidUtf8(*text)) {
        out << ",\n" << pad;
        WriteString(out, std::string(member.key()) + "_bytes");
        out << ": ";
        WriteString(out, ToHex(std::span(reinterpret_cast<const std::uint8_t*>(text->data()), text->size())));
      }
    }
    out << "\n" << close_pad << "}";
  } else if (const auto* array = value.if_array()) {
    if (array->empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i) out << ",\n";
      out << pad;
      Write(out, (*array)[i], indent + 2, exact_bytes);
    }
    out << "\n" << close_pad << "]";
  } else if (const auto* text = value.if_string()) {
    WriteString(out, *text);
  } else {
    out << boost::json::serialize(value);
  }
}

}  // namespace

void WritePrettyJson(std::ostream& out, const boost::json::value& value, bool exact_bytes) {
  Write(out, value, 0, exact_bytes);
  out << "\n";
}

}  // namespace ckpt::reports
