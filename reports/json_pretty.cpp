#include "reports/json_pretty.h"

#include <boost/json/serialize.hpp>

namespace ckpt::reports {
namespace {

void Write(std::ostream& out, const boost::json::value& value, int indent) {
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
      out << pad << boost::json::serialize(boost::json::string(member.key())) << ": ";
      Write(out, member.value(), indent + 2);
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
      Write(out, (*array)[i], indent + 2);
    }
    out << "\n" << close_pad << "]";
  } else {
    out << boost::json::serialize(value);
  }
}

}  // namespace

void WritePrettyJson(std::ostream& out, const boost::json::value& value) {
  Write(out, value, 0);
  out << "\n";
}

}  // namespace ckpt::reports
