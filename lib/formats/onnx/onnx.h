// ONNX models (formats.md section 7): what the reader records for a model folder to resolve.
// External data is checked lexically by the reader; inside an audited folder its locations
// are then resolved against the folder's own files (ResolveOnnxExternalData, through the
// format table's resolve_in_folder), never outside it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/artifact.h"

namespace ckpt::onnx_model {

struct OnnxFacts final : FormatFacts {
  std::int64_t ir_version = 0;
  std::vector<std::pair<std::string, std::int64_t>> opset_imports;
  /// A tensor whose data is in another file (a location that does not escape the folder).
  struct ExternalData {
    std::string tensor;
    std::string location;                    ///< relative to the model's own folder
    std::string offset_text;                 ///< the "offset" entry as written ("" when absent)
    std::optional<std::string> length_text;  ///< the "length" entry as written
    std::optional<std::uint64_t> expected;   ///< numel x element size (nullopt: STRING or unknown)
  };
  std::vector<ExternalData> external;
  void Describe(boost::json::object& fields) const override;
};

}  // namespace ckpt::onnx_model
