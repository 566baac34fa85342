// keras-metadata-invalid: a .keras file's metadata.json is not valid.
// Detected while reading: lib/formats/keras reports Diag::kKerasMetadataInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_metadata_invalid {

const RuleInfo kRule{
    .id = "keras-metadata-invalid",
    .name = "KerasMetadataInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A .keras file's metadata.json is not valid",
    .explanation =
        "metadata.json is not a strict JSON object with a keras_version string: the Keras version that wrote the file "
        "is unknown.",
    .remediation = "Re-save the model with Keras.",
    .security = false,
};

}  // namespace ckpt::rules::keras_metadata_invalid
