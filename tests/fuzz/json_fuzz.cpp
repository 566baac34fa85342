// Fuzz target: the strict JSON parser, and position lookup for every offset it reports.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lib/json/json_writer.h"
#include "lib/json/strict_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto result = ckpt::json::ParseStrict(text);
  if (auto* doc = std::get_if<ckpt::json::Document>(&result)) {
    for (const auto& dup : doc->duplicates) (void)ckpt::json::LocateOffset(text, dup.second_offset);
    (void)doc->root().AsInteger();
    (void)ckpt::json::ToCompactJson(doc->root());  // every value decoded from the tape
  } else {
    (void)ckpt::json::LocateOffset(text, std::get<ckpt::json::ParseError>(result).offset);
  }
  return 0;
}
