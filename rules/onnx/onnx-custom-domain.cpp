// onnx-custom-domain: an ONNX model needs operators outside ONNX's own domains.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxCustomDomain.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_custom_domain {

const RuleInfo kRule{
    .id = "onnx-custom-domain",
    .name = "OnnxCustomDomain",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "An ONNX model needs operators outside ONNX's own domains",
    .explanation =
        "An opset import or node domain other than ONNX's own (\"\", ai.onnx, ai.onnx.ml, ai.onnx.training, "
        "ai.onnx.preview.training) that no local function defines needs a custom operator library to run: native code "
        "the model's publisher supplies.",
    .remediation = "Check where the custom operator library comes from, or export the model with standard operators.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_custom_domain
