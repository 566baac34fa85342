// Deterministic, indented serialization of a boost::json::value (object keys keep their
// insertion order), so JSON reports diff well and golden files stay readable.
#pragma once

#include <ostream>

#include <boost/json/value.hpp>

namespace ckpt::reports {

void WritePrettyJson(std::ostream& out, const boost::json::value& value);

}  // namespace ckpt::reports
