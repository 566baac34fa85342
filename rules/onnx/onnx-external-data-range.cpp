// onnx-external-data-range: an ONNX model's external data lies outside its file or has the wrong size.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxExternalDataRange.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_external_data_range {

const RuleInfo kRule{
    .id = "onnx-external-data-range",
    .name = "OnnxExternalDataRange",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX model's external data lies outside its file or has the wrong size",
    .explanation =
        "An external data entry's offset and length must be unsigned integers, lie within the file they name, and the "
        "length must be the tensor's element count times its element size: onnx.load fails on anything else, or reads "
        "bytes no writer gave the tensor.",
    .remediation = "Re-save the model with onnx.save_model, which writes the offsets and lengths of its data.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_external_data_range
