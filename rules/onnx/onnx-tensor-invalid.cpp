// onnx-tensor-invalid: an ONNX tensor's data does not match its shape and type.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxTensorInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_tensor_invalid {

const RuleInfo kRule{
    .id = "onnx-tensor-invalid",
    .name = "OnnxTensorInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX tensor's data does not match its shape and type",
    .explanation =
        "A tensor's raw_data must hold numel x element size bytes, and its typed data fields exactly numel values (two "
        "per complex element); a negative dimension or a shape whose size overflows is refused. Runtimes read such "
        "tensors differently or past their end.",
    .remediation = "Export the model again.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_tensor_invalid
