// keras-code-layer: a Keras config holds a layer that loads outside code.
// Detected while reading: lib/formats/keras reports Diag::kKerasCodeLayer.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_code_layer {

const RuleInfo kRule{
    .id = "keras-code-layer",
    .name = "KerasCodeLayer",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config holds a layer that loads outside code",
    .explanation =
        "TFSMLayer loads and runs a TensorFlow SavedModel from a path (CVE-2026-1462), TorchModuleWrapper unpickles a "
        "torch module, JaxLayer and FlaxLayer hold Python callables: loading the model runs code that is not in its "
        "config.",
    .remediation = "Rebuild the model from Keras layers, or load the wrapped model separately from a source you trust.",
    .security = true,
};

}  // namespace ckpt::rules::keras_code_layer
