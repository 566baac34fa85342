// keras-class-unknown: a Keras config names a class that is not in Keras' public API.
// Detected while reading: lib/formats/keras reports Diag::kKerasClassUnknown.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_class_unknown {

const RuleInfo kRule{
    .id = "keras-class-unknown",
    .name = "KerasClassUnknown",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A Keras config names a class that is not in Keras' public API",
    .explanation =
        "A class in a keras module that is not a public name of the pinned Keras 3 API: Keras would import the module "
        "and take whatever the name holds there, so an internal helper could be reached as a class.",
    .remediation = "Use the class's public name, or register the class as a custom object.",
    .security = true,
};

}  // namespace ckpt::rules::keras_class_unknown
