// keras-module-unsafe: a Keras config names a module outside Keras.
// Detected while reading: lib/formats/keras reports Diag::kKerasModuleUnsafe.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_module_unsafe {

const RuleInfo kRule{
    .id = "keras-module-unsafe",
    .name = "KerasModuleUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config names a module outside Keras",
    .explanation =
        "Every serialized object of a Keras config names the module its class or function comes from. Keras before 3.9 "
        "imports any module a config names and takes the object from it, so {\"module\": \"os\", \"class_name\": "
        "\"function\", \"config\": \"system\"} runs a command on load (CVE-2025-1550). Only keras modules are "
        "accepted; keras_hub, keras_nlp and keras_cv get a note.",
    .remediation =
        "Rebuild the model from Keras' own layers, or load it only with the custom objects you trust passed "
        "explicitly.",
    .security = true,
};

}  // namespace ckpt::rules::keras_module_unsafe
