// keras-config-invalid: a Keras config is not a strict JSON object.
// Detected while reading: lib/formats/keras reports Diag::kKerasConfigInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_config_invalid {

const RuleInfo kRule{
    .id = "keras-config-invalid",
    .name = "KerasConfigInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config is not a strict JSON object",
    .explanation =
        "config.json (or an HDF5 file's model_config and training_config) must be strict JSON: at most 100,000,000 "
        "bytes, nesting up to 127 levels, no duplicate keys (Python's json keeps the last, other readers the first), "
        "an object at the root, and every class_name and module a string.",
    .remediation = "Re-save the model with Keras.",
    .security = false,
};

}  // namespace ckpt::rules::keras_config_invalid
