// The strict JSON parser: agrees with Boost.JSON (the oracle) on what is JSON, and adds
// what Boost.JSON's DOM cannot give: duplicate keys, token positions, exact integers.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <tuple>
#include <vector>

#include "lib/json/strict_parser.h"

namespace ckpt::json {
namespace {

bool BoostAccepts(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = 127;
  boost::json::parse(text, ec, {}, options);
  return !ec;
}

bool WeAccept(std::string_view text) { return std::holds_alternative<Document>(ParseStrict(text)); }

TEST(StrictJson, AgreesWithBoostJsonOnACorpus) {
  const std::vector<std::string> corpus = {
      "{}",
      "[]",
      "0",
      "-0",
      "1.5e-3",
      "1E+2",
      "\"a\"",
      "true",
      "false",
      "null",
      " \t\r\n{} \n",
      "{\"a\":[1,2,{\"b\":null}]}",
      "\"\\u00e9\\ud83d\\ude00\"",
      "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
      "\"\xC3\xA9\"",
      "18446744073709551615",
      "18446744073709551616",
      "-9223372036854775809",
      // invalid
      "",
      " ",
      "{",
      "}",
      "[1,]",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "01",
      "1.",
      ".5",
      "1e",
      "-",
      "+1",
      "tru",
      "nul",
      "'a'",
      "\"a",
      "\"\\x\"",
      "\"\\u12\"",
      "\"\\ud800\"",
      "\"\\udc00\"",
      "\"\\ud800\\u0041\"",
      "\"a\nb\"",
      "\"\x01\"",
      "[1 2]",
      "{} {}",
      "[] x",
      "\xEF\xBB\xBF{}",
      "\"\xC0\x80\"",
      "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"",
      "\"\xFF\"",
      "NaN",
      "Infinity",
      "[1]//",
      "/*x*/[]",
      std::string(127, '[') + std::string(127, ']'),
      std::string(128, '[') + std::string(128, ']'),
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
  EXPECT_EQ(doc.root().Size(), 3u) << "both occurrences are kept";
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
  auto depth = ParseStrict(std::string(200, '['));
  ASSERT_TRUE(std::holds_alternative<ParseError>(depth));
  EXPECT_EQ(std::get<ParseError>(depth).offset, 127u);
  EXPECT_EQ(std::get<ParseError>(depth).kind, ParseError::Kind::kTooDeep);
  EXPECT_NE(std::get<ParseError>(depth).message.find("nesting deeper than 127"), std::string::npos);
}

// serde_json's limit (issue 8 item 14): 127 levels are a document, 128 are refused, and
// depth is judged before anything else (here: invalid UTF-8 and a syntax error after it).
TEST(StrictJson, NestingFollowsSerdeJson) {
  const std::string deep127 = "{\"m\":" + std::string(125, '[') + "{\"k\":1}" + std::string(125, ']') + "}";
  EXPECT_TRUE(std::holds_alternative<Document>(ParseStrict(deep127)));
  const std::string deep128 = "\xFF" + std::string(128, '{') + "\"a\":1 x";
  auto result = ParseStrict(deep128);
  ASSERT_TRUE(std::holds_alternative<ParseError>(result));
  EXPECT_EQ(std::get<ParseError>(result).kind, ParseError::Kind::kTooDeep);
  EXPECT_EQ(std::get<ParseError>(result).offset, 128u);
  EXPECT_EQ(FindExcessiveNesting("[\"[[[[\"]", 2), std::nullopt) << "brackets inside strings do not nest";
}

// The decoded DOM equals Boost.JSON's for every accepted corpus document.
boost::json::value ToBoost(const Value& v) {
  switch (v.type()) {
    case Type::kNull:
      return nullptr;
    case Type::kBool:
      return v.boolean();
    case Type::kNumber:
      return boost::json::parse(v.Raw());
    case Type::kString:
      return boost::json::string(v.String());
    case Type::kArray: {
      boost::json::array out;
      for (Value item : v.Items()) out.push_back(ToBoost(item));
      return out;
    }
    case Type::kObject: {
      boost::json::object out;
      for (const Member& m : v.Members()) out[m.key] = ToBoost(m.value);
      return out;
    }
  }
  return nullptr;
}

TEST(StrictJson, DecodedValuesEqualBoostJson) {
  const std::vector<std::string> corpus = {"{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false,\"e\":-1.5e3}",
                                           "\"\\u00e9\\ud83d\\ude00\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
                                           "{\"k\\u0041\":{\"\":[[],{},[[]]]}}", "[\"\xC3\xA9\", 0, -0, 1E+2]"};
  for (const std::string& text : corpus) {
    auto ours = ParseStrict(text);
    ASSERT_TRUE(std::holds_alternative<Document>(ours)) << text;
    EXPECT_EQ(ToBoost(std::get<Document>(ours).root()), boost::json::parse(text)) << text;
  }
}

// Issue 8 item 9: the tape stays within a small multiple of the text, whatever its shape.
TEST(StrictJson, TapeIsBoundedByTheText) {
  for (const std::string& unit :
       {std::string("0,"), std::string("[],"), std::string("{},"), std::string("\"\","), std::string("{\"\":[]},")}) {
    std::string text = "[";
    while (text.size() < 3'000'000) text += unit;
    text += "0]";
    auto result = ParseStrict(text);
    ASSERT_TRUE(std::holds_alternative<Document>(result)) << unit;
    const auto& tape = std::get<Document>(result).tape();
    EXPECT_LE(tape.size() * sizeof(std::uint32_t), 3 * text.size()) << unit;
  }
}

TEST(StrictJson, RepeatedKeysAreCappedAndCounted) {
  std::string text = "{";
  for (int i = 0; i < 5000; ++i) text += "\"k\":0,";
  text += "\"k\":0}";
  auto result = ParseStrict(text);
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  const Document& doc = std::get<Document>(result);
  EXPECT_EQ(doc.duplicates.size(), Document::kMaxRecordedDuplicates);
  EXPECT_EQ(doc.duplicates.size() + doc.duplicates_dropped, 5000u);
}

TEST(StrictJson, LineAndColumnCountUtf16Units) {
  const std::string text = "{\n  \"\xC3\xA9\xF0\x9F\x98\x80\": 1}";
  auto result = ParseStrict(text);
  ASSERT_TRUE(std::holds_alternative<Document>(result));
  const Value one = (*std::get<Document>(result).root().Members().begin()).value;
  LineColumn pos = LocateOffset(text, one.offset());
  EXPECT_EQ(pos.line, 2u);
  // 2 spaces, quote, e-acute (1 unit), emoji (2 units), quote, colon, space -> column 10.
  EXPECT_EQ(pos.column, 10u);
}

TEST(StrictJson, IntegersFollowTheSpec) {
  auto integer = [](const std::string& token) {
    auto result = ParseStrict(token);
    return std::get<Document>(result).root().AsInteger();
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
  EXPECT_EQ(std::get<Document>(result).root().String(), "\xC3\xA9\xF0\x9F\x98\x80\n");
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

// Duplicate keys are found through their hashes and compared only within equal hashes: the
// same pairs, in the same order (key text, then position), as comparing every key with every
// other. Random objects over a small alphabet (many duplicates, escaped spellings of the same
// key) are checked against that naive count.
TEST(StrictJson, DuplicateKeysAgreeWithComparingEveryPair) {
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (int round = 0; round < 300; ++round) {
    const std::size_t count = 1 + next() % (round < 250 ? 40 : 3000);
    std::string text = "{";
    std::vector<std::pair<std::string, std::uint64_t>> keys;  // decoded key, offset
    for (std::size_t i = 0; i < count; ++i) {
      std::string key;
      for (std::uint32_t n = next() % 3; n > 0; --n) key += static_cast<char>('a' + next() % 3);
      if (i > 0) text += ",";
      keys.emplace_back(key, text.size());
      text += '"';
      for (const char c : key)
        text += (next() % 4 == 0) ? "\\u006" + std::string(1, static_cast<char>(c - 'a' + '1')) : std::string(1, c);
      text += "\":0";
    }
    text += "}";
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> expected;
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a].first < keys[b].first; });
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (keys[order[i - 1]].first == keys[order[i]].first) {
        expected.emplace_back(keys[order[i]].first, keys[order[i - 1]].second, keys[order[i]].second);
      }
    }
    auto result = ParseStrict(text);
    ASSERT_TRUE(std::holds_alternative<Document>(result)) << text;
    const Document& doc = std::get<Document>(result);
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> found;
    for (const DuplicateKey& d : doc.duplicates) found.emplace_back(d.key, d.first_offset, d.second_offset);
    if (expected.size() > Document::kMaxRecordedDuplicates) expected.resize(Document::kMaxRecordedDuplicates);
    EXPECT_EQ(found, expected) << text.substr(0, 200);
  }
}

// Strings are scanned eight bytes at a time: a quote, a backslash or a control byte is found at
// every position of a word, and the decoded value and error offsets are Boost.JSON's.
TEST(StrictJson, StringBytesAreScannedWordByWordWithoutMissingAnything) {
  for (std::size_t before = 0; before < 20; ++before) {
    const std::string pad(before, 'x');
    for (const std::string& special : {std::string("\\\""), std::string("\\\\"), std::string("\\n"),
                                       std::string("\\u00e9"), std::string("\xC3\xA9")}) {
      std::string text = "[\"";
      text.append(pad).append(special).append(pad).append("\"]");
      auto result = ParseStrict(text);
      ASSERT_TRUE(std::holds_alternative<Document>(result)) << text;
      const Value item = *std::get<Document>(result).root().Items().begin();
      EXPECT_EQ(item.String(), boost::json::parse(text).as_array()[0].as_string().c_str()) << text;
    }
    std::string control = "[\"";
    control.append(pad).append("\x01").append(pad).append("\"]");
    auto refused = ParseStrict(control);
    ASSERT_TRUE(std::holds_alternative<ParseError>(refused));
    EXPECT_EQ(std::get<ParseError>(refused).offset, 2 + before) << before;
    const std::string open = "[\"" + pad;
    ASSERT_TRUE(std::holds_alternative<ParseError>(ParseStrict(open)));
    EXPECT_EQ(std::get<ParseError>(ParseStrict(open)).offset, 1u);
  }
}

// The depth scan skips strings with memchr: a quote ends a string only after an even run of
// backslashes.
TEST(StrictJson, NestingScanEndsStringsAsTheParserDoes) {
  EXPECT_EQ(FindExcessiveNesting(R"(["\\", [[]])", 2), 8u) << "an escaped backslash, then a real quote";
  EXPECT_EQ(FindExcessiveNesting(R"(["\\\"[[[", []])", 2), std::nullopt) << "an escaped quote stays inside";
  EXPECT_EQ(FindExcessiveNesting(R"(["\\\\\\", [[]])", 2), 12u);
  EXPECT_EQ(FindExcessiveNesting(R"(["unterminated [[[[)", 2), std::nullopt);
}

// A document over a mapped TextBuffer (a file read whole) parses as one over a string.
TEST(StrictJson, ADocumentOverAMappedBufferParsesAsOverAString) {
  std::string text = "{\"a\": [";
  while (text.size() < TextBuffer::kMapFrom * 2) text += "\"value\", ";
  text += "1]}";
  TextBuffer buffer = TextBuffer::Uninitialised(text.size());
  std::copy(text.begin(), text.end(), buffer.data());
  Document mapped(std::move(buffer));
  Document plain(text);
  ASSERT_FALSE(Parse(mapped));
  ASSERT_FALSE(Parse(plain));
  EXPECT_EQ(mapped.tape(), plain.tape());
  EXPECT_EQ(mapped.text(), plain.text());
  EXPECT_EQ(TextBuffer(std::string("small")).view(), "small");
}

// A reader that walks the root's members once may give back the pages behind it: what lies
// ahead still reads exactly, and what lies behind is gone (so the release is real).
TEST(StrictJson, PagesBehindAReaderAreGivenBackAndWhatIsAheadStaysExact) {
  std::string text = "{";
  std::size_t count = 0;
  while (text.size() < TextBuffer::kMapFrom * 4) {
    text += (count == 0 ? "\"k" : ",\"k") + std::to_string(count) + "\":[" + std::to_string(count) + ",\"v" +
            std::to_string(count) + "\"]";
    ++count;
  }
  text += "}";
  TextBuffer buffer = TextBuffer::Uninitialised(text.size());
  std::copy(text.begin(), text.end(), buffer.data());
  Document doc(std::move(buffer));
  ASSERT_FALSE(Parse(doc));
  const std::size_t middle_word = doc.tape().size() / 2;
  ASSERT_NE(doc.tape()[middle_word], 0u);
  std::size_t seen = 0;
  for (const Member& member : doc.root().Members()) {
    ASSERT_EQ(member.key, "k" + std::to_string(seen));
    std::vector<Value> items(member.value.Items().begin(), member.value.Items().end());
    ASSERT_EQ(items.size(), 2u);
    ASSERT_EQ(items[0].AsInteger(), seen);
    ASSERT_EQ(items[1].String(), "v" + std::to_string(seen));
    doc.ReleaseBefore(member.value.tape_index() - 1, member.key_offset);  // every member: the worst case
    ++seen;
  }
  EXPECT_EQ(seen, count);
  EXPECT_EQ(doc.text()[0], '\0') << "the text's first page was given back";
  EXPECT_EQ(doc.tape()[middle_word], 0u) << "the tape's middle was given back";
}

}  // namespace
}  // namespace ckpt::json
