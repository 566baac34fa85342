// onnx-external-data-missing: an ONNX model's external data is not a file of its folder.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxExternalDataMissing.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_external_data_missing {

const RuleInfo kRule{
    .id = "onnx-external-data-missing",
    .name = "OnnxExternalDataMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX model's external data is not a file of its folder",
    .explanation =
        "Inside a model folder, each external data location of an ONNX model must name a regular file of that folder, "
        "reached component by component without a symlink. A missing file fails onnx.load; a symlink or a special file "
        "could put anything in its place.",
    .remediation =
        "Ship the external data file beside the model, as onnx.save_model(..., save_as_external_data=True) writes it.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_external_data_missing
