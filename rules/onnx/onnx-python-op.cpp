// onnx-python-op: an ONNX model holds a PyOp node, which runs Python.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxPythonOp.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_python_op {

const RuleInfo kRule{
    .id = "onnx-python-op",
    .name = "OnnxPythonOp",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX model holds a PyOp node, which runs Python",
    .explanation =
        "onnxruntime-extensions' ai.onnx.contrib PyOp operator calls a Python function registered by name when the "
        "model runs: loading the model with the extensions runs code the model names.",
    .remediation = "Replace the PyOp node with standard operators.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_python_op
