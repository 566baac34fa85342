// keras-member-unexpected: a .keras zip holds a member Keras does not write.
// Detected while reading: lib/formats/keras reports Diag::kKerasMemberUnexpected.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_member_unexpected {

const RuleInfo kRule{
    .id = "keras-member-unexpected",
    .name = "KerasMemberUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A .keras zip holds a member Keras does not write",
    .explanation =
        "Keras writes metadata.json, config.json, model.weights.h5 or model.weights.npz, and assets/. Any other member "
        "(or one given twice) is not part of the model as Keras reads it, and may be another format hidden in the "
        "archive.",
    .remediation = "Remove the member, or re-save the model with Keras.",
    .security = true,
};

}  // namespace ckpt::rules::keras_member_unexpected
