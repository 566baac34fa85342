// convert-views-overlap: Overlapping views of one storage.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_views_overlap {

const RuleInfo kRule{
    .id = "convert-views-overlap",
    .name = "ConvertViewsOverlap",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Overlapping views of one storage",
    .explanation =
        "Two tensors are views of the same storage whose bytes overlap without being exact aliases (same "
        "offset, dtype, shape and strides). safetensors stores each tensor's bytes once and apart, so "
        "the sharing cannot be kept, and writing both copies would change what a write to one does to "
        "the other.",
    .remediation = "Save .clone() of one of the views (or of each), then convert.",
    .security = true,
};

}  // namespace ckpt::rules::convert_views_overlap
