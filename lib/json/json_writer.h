// Compact JSON text of a parsed value (for header diffs): keys in document order,
// numbers as their original tokens, strings re-escaped.
#pragma once

#include <string>

#include "lib/json/json_value.h"

namespace ckpt::json {

std::string ToCompactJson(const Value& value);

}  // namespace ckpt::json
