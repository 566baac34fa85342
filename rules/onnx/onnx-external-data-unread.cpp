// onnx-external-data-unread: an ONNX model's external data was not checked.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxExternalDataUnread.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_external_data_unread {

const RuleInfo kRule{
    .id = "onnx-external-data-unread",
    .name = "OnnxExternalDataUnread",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "An ONNX model's external data was not checked",
    .explanation =
        "The model keeps tensors in external files. Audited alone, an .onnx file never opens a sibling file, so the "
        "data it names was not read or hashed.",
    .remediation = "Audit the folder that holds the model and its external data.",
    .security = true,
};

}  // namespace ckpt::rules::onnx_external_data_unread
