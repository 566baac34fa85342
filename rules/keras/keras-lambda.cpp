// keras-lambda: a Keras config holds a Lambda layer or a marshalled lambda.
// Detected while reading: lib/formats/keras reports Diag::kKerasLambda.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_lambda {

const RuleInfo kRule{
    .id = "keras-lambda",
    .name = "KerasLambda",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config holds a Lambda layer or a marshalled lambda",
    .explanation =
        "A Lambda layer carries a Python function, as marshalled bytecode (__lambda__, CVE-2024-3660) or as a "
        "reference, which runs when the model is loaded or called; Keras' HDF5 loader ignores safe_mode for it "
        "(CVE-2025-9905).",
    .remediation =
        "Replace the Lambda layer with a built-in layer or a registered custom layer whose code you control.",
    .security = true,
};

}  // namespace ckpt::rules::keras_lambda
