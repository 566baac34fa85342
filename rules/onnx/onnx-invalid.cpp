// onnx-invalid: a file recognised as ONNX is not a valid ModelProto.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_invalid {

const RuleInfo kRule{
    .id = "onnx-invalid",
    .name = "OnnxInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A file recognised as ONNX is not a valid ModelProto",
    .explanation =
        "The bytes do not parse as an ONNX ModelProto, or the model has no graph, an initializer without a name, two "
        "initializers of one name, or a node input that no initializer, graph input or earlier node output defines "
        "(onnx.checker's topological check). Runtimes disagree on such models or refuse them.",
    .remediation = "Export the model again and run onnx.checker.check_model on it.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_invalid
