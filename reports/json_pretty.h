// Deterministic, indented serialization of a boost::json::value (object keys keep their
// insertion order), so JSON reports diff well and golden files stay readable.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>

namespace ckpt::reports {

/// Writes `value` indented. Strings are always valid UTF-8 (bad bytes as the text \xNN);
/// with `exact_bytes`, a repaired path, name, file, artifact or tensor string is followed by
/// "<key>_bytes" holding its exact bytes in hex (off for SARIF, whose schema is closed).
void WritePrettyJson(std::ostream& out, const boost::json::value& value, bool exact_bytes = true);

}  // namespace ckpt::reports
