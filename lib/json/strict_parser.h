// A strict RFC 8259 JSON parser for untrusted input.
//
// Why our own instead of boost::json::parse: the audit must report *where* a problem is
// (byte offset, line, column) and must see duplicate object keys, which Boost.JSON's
// DOM parser resolves silently. The parser is iterative (no recursion, so hostile nesting
// cannot exhaust the stack), caps nesting depth at serde_json's limit, rejects invalid
// UTF-8 and lone surrogate escapes, and writes the compact tape of json_value.h, so a
// document costs at most a small constant times its own size (see json_value.h).
// Boost.JSON remains the oracle in tests (tests/json_parser_test.cpp) and the writer for reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "lib/json/json_value.h"

namespace ckpt::json {

struct ParseOptions {
  std::size_t max_depth = kMaxNestingDepth;  ///< entering a deeper array or object is refused
};

struct ParseError {
  enum class Kind {
    kSyntax,       ///< not JSON (including lone surrogates and trailing data)
    kInvalidUtf8,  ///< a byte sequence that is not UTF-8
    kTooDeep,      ///< arrays and objects nested deeper than ParseOptions::max_depth
    kTooLarge,     ///< longer than kMaxDocumentBytes
  };
  Kind kind = Kind::kSyntax;
  std::string message;  ///< what is wrong, without the position
  std::uint64_t offset = 0;
};

/// Offset of the bracket that opens nesting level `max_depth + 1`, or nullopt. Looks only
/// at brackets outside strings, so it judges depth before (and whatever) anything else.
[[nodiscard]] std::optional<std::uint64_t> FindExcessiveNesting(std::string_view text,
                                                                std::size_t max_depth = kMaxNestingDepth);

/// Parses `doc.text()` (one JSON value surrounded by optional whitespace) into `doc`.
/// Errors: nesting too deep (checked first), invalid UTF-8, syntax, lone surrogate
/// escapes, trailing data, a text longer than kMaxDocumentBytes.
[[nodiscard]] std::optional<ParseError> Parse(Document& doc, const ParseOptions& options = {});

using ParseResult = std::variant<Document, ParseError>;

/// Convenience for tests and fuzzers: copies `text` into a Document and parses it.
[[nodiscard]] ParseResult ParseStrict(std::string_view text, const ParseOptions& options = {});

}  // namespace ckpt::json
