// Deterministic, indented serialization of a boost::json::value (object keys keep their
// insertion order), so JSON reports diff well and golden files stay readable.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ckpt::reports {

/// Arrays written element by element as they are made, for lists as long as the input (a
/// million tensors): the report holds a placeholder where such an array goes, and
/// WritePrettyJson asks its producer for the elements in turn, so the list never exists as
/// JSON values at once. The text written is the same as for the whole array.
class StreamedArrays {
 public:
  using Emit = std::function<void(const boost::json::value&)>;
  using Producer = std::function<void(const Emit& emit)>;

  StreamedArrays();
  /// The placeholder to put where the array goes; `produce` emits its elements in order when
  /// it is written (what it reads must outlive the write).
  [[nodiscard]] boost::json::value Add(Producer produce);
  /// The array `produce` emits: with `streamed`, its placeholder (written as it is made);
  /// without, the whole array (for callers that keep the report as a value).
  [[nodiscard]] static boost::json::value ArrayOf(StreamedArrays* streamed, Producer produce);
  /// The producer of `placeholder`, or nullptr when it is an ordinary array.
  [[nodiscard]] const Producer* Find(const boost::json::array& placeholder) const;

 private:
  std::string token_;  // random per instance: no input string can be taken for a placeholder
  std::vector<Producer> producers_;
};

/// Writes `value` indented. Strings are always valid UTF-8 (bad bytes as the text \xNN);
/// with `exact_bytes`, a repaired path, name, file, artifact or tensor string is followed by
/// "<key>_bytes" holding its exact bytes in hex (off for SARIF, whose schema is closed).
/// Placeholders of `streamed` are written as the arrays their producers emit.
void WritePrettyJson(std::ostream& out, const boost::json::value& value, bool exact_bytes = true,
                     const StreamedArrays* streamed = nullptr);

}  // namespace ckpt::reports
