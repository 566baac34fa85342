// keras-custom-object: a Keras config needs a custom object.
// Detected while reading: lib/formats/keras reports Diag::kKerasCustomObject.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_custom_object {

const RuleInfo kRule{
    .id = "keras-custom-object",
    .name = "KerasCustomObject",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A Keras config needs a custom object",
    .explanation =
        "An object registered as package>Name, or (in a Keras 2 HDF5 config) a class that is not a Keras layer: the "
        "loader must supply its code as a custom object. That code is the user's, not the file's, but it runs on load.",
    .remediation = "Make sure the custom objects passed to load_model come from code you trust.",
    .security = true,
};

}  // namespace ckpt::rules::keras_custom_object
