#include "reports/json_pretty.h"

#include <array>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <random>
#include <string_view>

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

void Write(std::ostream& out, const boost::json::value& value, int indent, bool exact_bytes,
           const StreamedArrays* streamed) {
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
      Write(out, member.value(), indent + 2, exact_bytes, streamed);
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
    if (const StreamedArrays::Producer* produce = streamed != nullptr ? streamed->Find(*array) : nullptr) {
      bool first = true;
      (*produce)([&](const boost::json::value& element) {
        out << (first ? "[\n" : ",\n") << pad;
        first = false;
        Write(out, element, indent + 2, exact_bytes, streamed);
      });
      out << (first ? "[]" : "\n" + close_pad + "]");
      return;
    }
    if (array->empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i) out << ",\n";
      out << pad;
      Write(out, (*array)[i], indent + 2, exact_bytes, streamed);
    }
    out << "\n" << close_pad << "]";
  } else if (const auto* text = value.if_string()) {
    WriteString(out, *text);
  } else {
    out << boost::json::serialize(value);
  }
}

}  // namespace

StreamedArrays::StreamedArrays() {
  std::array<std::uint8_t, 16> random{};
  std::random_device device;
  for (std::uint8_t& b : random) b = static_cast<std::uint8_t>(device() & 0xFF);
  token_ = "\x01streamed:" + ToHex(std::span<const std::uint8_t>(random)) + ":";
}

boost::json::value StreamedArrays::Add(Producer produce) {
  producers_.push_back(std::move(produce));
  return boost::json::array{boost::json::value(token_ + std::to_string(producers_.size() - 1))};
}

boost::json::value StreamedArrays::ArrayOf(StreamedArrays* streamed, Producer produce) {
  if (streamed != nullptr) return streamed->Add(std::move(produce));
  boost::json::array whole;
  produce([&whole](const boost::json::value& element) { whole.push_back(element); });
  return whole;
}

const StreamedArrays::Producer* StreamedArrays::Find(const boost::json::array& placeholder) const {
  if (placeholder.size() != 1) return nullptr;
  const boost::json::string* text = placeholder[0].if_string();
  if (text == nullptr || !std::string_view(*text).starts_with(token_)) return nullptr;
  const std::string_view index = std::string_view(*text).substr(token_.size());
  std::size_t i = 0;
  for (char c : index) i = i * 10 + static_cast<std::size_t>(c - '0');
  return i < producers_.size() ? &producers_[i] : nullptr;
}

void WritePrettyJson(std::ostream& out, const boost::json::value& value, bool exact_bytes,
                     const StreamedArrays* streamed) {
  Write(out, value, 0, exact_bytes, streamed);
  out << "\n";
}

}  // namespace ckpt::reports
