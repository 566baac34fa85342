// oms-media-type: Bundle media type is not Sigstore bundle v0.3.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsMediaType.
#include "rules/catalog.h"

namespace ckpt::rules::oms_media_type {

const RuleInfo kRule{
    .id = "oms-media-type",
    .name = "OmsMediaType",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bundle media type is not Sigstore bundle v0.3",
    .explanation =
        "The bundle's mediaType is not application/vnd.dev.sigstore.bundle.v0.3+json, the only one model_signing "
        "writes and accepts for model signatures.",
    .remediation = "Re-sign the model with a current model_signing or ckpt-audit --sign-model.",
    .security = true,
};

}  // namespace ckpt::rules::oms_media_type
