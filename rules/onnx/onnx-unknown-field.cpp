// onnx-unknown-field: an ONNX model holds fields its schema does not define.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxUnknownField.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_unknown_field {

const RuleInfo kRule{
    .id = "onnx-unknown-field",
    .name = "OnnxUnknownField",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "An ONNX model holds fields its schema does not define",
    .explanation =
        "Protobuf keeps fields it does not know and a newer or patched runtime may read them: bytes that the audit, "
        "and ONNX 1.12's schema, cannot interpret.",
    .remediation = "Save the model again with the onnx package (onnx.save_model drops nothing it knows).",
    .security = true,
};

}  // namespace ckpt::rules::onnx_unknown_field
