// onnx-budget-exceeded: an ONNX model is past the reader's bounds.
// Detected while reading: lib/formats/onnx reports Diag::kOnnxBudgetExceeded.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::onnx_budget_exceeded {

const RuleInfo kRule{
    .id = "onnx-budget-exceeded",
    .name = "OnnxBudgetExceeded",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An ONNX model is past the reader's bounds",
    .explanation =
        "A model larger than protobuf's 2 GiB - 1 limit, or with more than 10^6 nodes, initializers or attributes, or "
        "subgraphs nested past 64 levels, is not read: its size is an attack on the reader, and large models keep "
        "their weights as external data.",
    .remediation =
        "Save the model with its weights as external data (onnx.save_model(..., save_as_external_data=True)).",
    .security = true,
};

}  // namespace ckpt::rules::onnx_budget_exceeded
