// keras-function-unsafe: a Keras config refers to a function that is not a built-in activation, loss or metric.
// Detected while reading: lib/formats/keras reports Diag::kKerasFunctionUnsafe.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_function_unsafe {

const RuleInfo kRule{
    .id = "keras-function-unsafe",
    .name = "KerasFunctionUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config refers to a function that is not a built-in activation, loss or metric",
    .explanation =
        "A function reference (class_name function) is resolved by name to any function Keras exports and called: "
        "keras.utils.get_file downloads a file, keras.models.load_model loads another model, "
        "keras.config.enable_unsafe_deserialization turns safe_mode off (CVE-2025-8747, CVE-2025-9906). Only the "
        "built-in activations, losses and metrics, in their own module, are allowed.",
    .remediation = "Use a built-in activation, loss or metric, or register your own function in code you control.",
    .security = true,
};

}  // namespace ckpt::rules::keras_function_unsafe
