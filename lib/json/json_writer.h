// Compact JSON text of a parsed value (for header diffs): keys in document order,
// numbers as their original tokens, strings re-escaped.
#pragma once

#include <string>
#include <string_view>

#include "lib/json/json_value.h"

namespace ckpt::json {

std::string ToCompactJson(const Value& value);

/// `text` as a JSON string, escaped as serde_json and Python's json.dumps(ensure_ascii=False)
/// escape it: `"` and `\`, \b \f \n \r \t, other controls as \u00xx (lowercase), the rest raw.
std::string QuoteString(std::string_view text);

}  // namespace ckpt::json
