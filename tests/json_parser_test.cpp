// The strict JSON parser: agrees with Boost.JSON (the oracle) on what is JSON, and adds
// what Boost.JSON's DOM cannot give: duplicate keys, token positions, exact integers.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "lib/json/strict_parser.h"

namespace ckpt::json {
namespace {

bool BoostAccepts(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = 64;
  boost::json::parse(text, ec, {}, options);
  return !ec;
}

bool WeAccept(std::string_view text) { return std::holds_alternative<Document>(ParseStrict(text)); }

TEST(StrictJson, AgreesWithBoostJsonOnACorpus) {
  const std::vector<std::string> corpus = {
      "{}", "[]", "0", "-0", "1.5e-3", "1E+2", "\"a\"", "true", "false", "null", " \t\r\n{} \n",
      "{\"a\":[1,2,{\"b\":null}]}", "\"\\u00e9\\ud83d\\ude00\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
      "\"\xC3\xA9\"", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
      // invalid
      "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "1e", "-", "+1",
      "tru", "nul", "'a'", "\"a", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
      "\"a\nb\"", "\"\x01\"", "[1 2]", "{} {}", "[] x", "\xEF\xBB\xBF{}", "\"\xC0\x80\"", "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"", "\"\xFF\"", "NaN", "Infinity", "[1]//", "/*x*/[]",
      std::string(64, '[') + std::string(64, ']'), std::string(65, '[') + std::string(65, ']'),
  };
  for (const std::string& text : corpus) {
    EXPECT_EQ(WeAccept(text), BoostAccepts(text)) << "input: " << text;
  }
}

TEST(StrictJson, DuplicateKeysAreReportedWithBothPositions) {
  auto result = ParseStrict("{\"a\":1,\n \"b\":{\"x\":1,\"x\":2},\"a\":3}");
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  const Document& doc = std::get<Document>(result);
  ASSERT_EQ(doc.duplicates.size(), 2u);
  // Reported when each object closes: the inner one first.
  EXPECT_EQ(doc.duplicates[0].object_pointer, "/b");
  EXPECT_EQ(doc.duplicates[0].key, "x");
  EXPECT_EQ(doc.duplicates[1].object_pointer, "");
  EXPECT_EQ(doc.duplicates[1].key, "a");
  EXPECT_EQ(doc.duplicates[1].first_offset, 1u);
  EXPECT_EQ(doc.duplicates[1].second_offset, 27u);
  EXPECT_EQ(doc.root.members.size(), 3u) << "both occurrences are kept";
}

TEST(StrictJson, DuplicateKeysCompareDecodedText) {
  auto result = ParseStrict("{\"x\":1,\"\\u0078\":2}");
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  EXPECT_EQ(std::get<Document>(result).duplicates.size(), 1u);
}

TEST(StrictJson, DuplicatePointerEscapesTokensAndIndexesArrays) {
  auto result = ParseStrict("{\"a/b\":[{\"k\":1,\"k\":2}]}");
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  ASSERT_EQ(std::get<Document>(result).duplicates.size(), 1u);
  EXPECT_EQ(std::get<Document>(result).duplicates[0].object_pointer, "/a~1b/0");
}

TEST(StrictJson, ErrorsCarryTheirOffset) {
  auto result = ParseStrict("{\"a\": [1, 2,, 3]}");
  ASSERT_TRUE(std::holds_alternative<ParseError>(result));
  EXPECT_EQ(std::get<ParseError>(result).offset, 12u);
  auto depth = ParseStrict(std::string(100, '['));
  ASSERT_TRUE(std::holds_alternative<ParseError>(depth));
  EXPECT_EQ(std::get<ParseError>(depth).offset, 64u);
  EXPECT_NE(std::get<ParseError>(depth).message.find("nesting deeper than 64"), std::string::npos);
}

TEST(StrictJson, LineAndColumnCountUtf16Units) {
  const std::string text = "{\n  \"\xC3\xA9\xF0\x9F\x98\x80\": 1}";
  auto result = ParseStrict(text);
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  const Value& one = std::get<Document>(result).root.members[0].value;
  LineColumn pos = LocateOffset(text, one.offset);
  EXPECT_EQ(pos.line, 2u);
  // 2 spaces, quote, e-acute (1 unit), emoji (2 units), quote, colon, space -> column 10.
  EXPECT_EQ(pos.column, 10u);
}

TEST(StrictJson, IntegersFollowTheSpec) {
  auto integer = [](const std::string& token) {
    auto result = ParseStrict(token);
    return std::get<Document>(result).root.AsInteger();
  };
  EXPECT_EQ(integer("0"), 0u);
  EXPECT_EQ(integer("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(integer("18446744073709551616"), std::nullopt);
  EXPECT_EQ(integer("-0"), std::nullopt);
  EXPECT_EQ(integer("-1"), std::nullopt);
  EXPECT_EQ(integer("1.0"), std::nullopt);
  EXPECT_EQ(integer("1e0"), std::nullopt);
  EXPECT_EQ(integer("\"1\""), std::nullopt);
}

TEST(StrictJson, DecodesEscapesAndSurrogatePairs) {
  auto result = ParseStrict("\"\\u00e9\\ud83d\\ude00\\n\"");
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  EXPECT_EQ(std::get<Document>(result).root.text, "\xC3\xA9\xF0\x9F\x98\x80\n");
}

TEST(StrictJson, ReportsTheRootValueSpan) {
  auto result = ParseStrict("  {\"a\":1}\t ");
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  EXPECT_EQ(std::get<Document>(result).value_begin, 2u);
  EXPECT_EQ(std::get<Document>(result).value_end, 9u);
}

}  // namespace
}  // namespace ckpt::json

namespace ckpt::json {
namespace {

TEST(PositionIndex, AgreesWithLocateOffsetEverywhere) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += (i % 7 == 0) ? "\n" : (i % 5 == 0) ? "\xF0\x9F\x98\x80" : "ab\xC3\xA9";
  const PositionIndex index(text);
  for (std::uint64_t offset = 0; offset <= text.size() + 3; offset += 7) {
    LineColumn expected = LocateOffset(text, offset);
    LineColumn got = index.Locate(text, offset);
    ASSERT_EQ(got.line, expected.line) << offset;
    ASSERT_EQ(got.column, expected.column) << offset;
  }
}

}  // namespace
}  // namespace ckpt::json
