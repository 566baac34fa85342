// onnx-external-data-escape: an ONNX tensor's external data location leaves the model's folder.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxExternalDataEscape.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_external_data_escape {

const RuleInfo kRule{
    .id = "onnx-external-data-escape",
    .name = "OnnxExternalDataEscape",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX tensor's external data location leaves the model's folder",
    .explanation =
        "external_data location names the file a tensor's bytes are read from, relative to the model. An absolute "
        "path, a '..' component, a backslash, an empty location or a NUL reads a file outside the model's folder when "
        "the model is loaded (CVE-2024-27318, CVE-2022-25882, CVE-2024-5187).",
    .remediation =
        "Save the model again with its external data beside it (onnx.save_model(..., save_as_external_data=True, "
        "location='weights.data')).",
    .security = true,
};

}  // namespace ckpt::rules::onnx_external_data_escape
