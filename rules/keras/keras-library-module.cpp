// keras-library-module: a Keras config uses a library of the Keras team.
// Detected while reading: lib/formats/keras reports Diag::kKerasLibraryModule.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::keras_library_module {

const RuleInfo kRule{
    .id = "keras-library-module",
    .name = "KerasLibraryModule",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kNote,
    .title = "A Keras config uses a library of the Keras team",
    .explanation =
        "An object from keras_hub, keras_nlp or keras_cv: loading the model imports that library, which must be "
        "installed. The object is accepted without being judged against Keras' own names.",
    .remediation = "Install the library from a source you trust before loading the model.",
    .security = false,
};

}  // namespace ckpt::rules::keras_library_module
