// A strict RFC 8259 JSON parser for untrusted input.
//
// Why our own instead of boost::json::parse: the audit must report *where* a problem is
// (byte offset, line, column) and must see duplicate object keys, which Boost.JSON's
// DOM parser resolves silently. The parser is iterative (no recursion, so hostile nesting
// cannot exhaust the stack), caps nesting depth, rejects invalid UTF-8 and lone surrogate
// escapes, and never allocates more than a small multiple of the input it was given.
// Boost.JSON remains the oracle in tests (tests/json_parser_test.cpp) and the writer for reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lib/json/json_value.h"

namespace ckpt::json {

struct ParseOptions {
  std::size_t max_depth = 64;  ///< arrays and objects nested deeper than this are refused
};

/// A key that appears twice in one object. Both occurrences are kept in the Value.
struct DuplicateKey {
  std::string object_pointer;  ///< JSON Pointer of the object holding the key
  std::string key;
  std::uint64_t first_offset = 0;
  std::uint64_t second_offset = 0;
};

struct Document {
  Value root;
  std::vector<DuplicateKey> duplicates;
  std::uint64_t value_begin = 0;  ///< offset of the root token (after leading whitespace)
  std::uint64_t value_end = 0;    ///< offset one past the root value (trailing whitespace follows)
};

struct ParseError {
  std::string message;  ///< what is wrong, without the position
  std::uint64_t offset = 0;
};

using ParseResult = std::variant<Document, ParseError>;

/// Parses one JSON value surrounded by optional whitespace. Errors: invalid UTF-8,
/// syntax, nesting deeper than options.max_depth, lone surrogate escapes, trailing data.
[[nodiscard]] ParseResult ParseStrict(std::string_view text, const ParseOptions& options = {});

}  // namespace ckpt::json
