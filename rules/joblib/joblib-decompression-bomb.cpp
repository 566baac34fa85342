// joblib-decompression-bomb: a joblib file decompresses past the hard bounds.
// Detected while reading: lib/formats/joblib reports Diag::kJoblibDecompressionBomb.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::joblib_decompression_bomb {

const RuleInfo kRule{
    .id = "joblib-decompression-bomb",
    .name = "JoblibDecompressionBomb",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A joblib file decompresses past its bound (a decompression bomb)",
    .explanation =
        "The decompressed stream passed max(64 MiB, 2,000 x the compressed size), or 4 GiB. No model "
        "compresses that well; a stream that does exhausts the memory or disk of whatever loads it. The "
        "read stops the moment the bound is crossed, so the audit stays fast and small.",
    .remediation = "Do not load it. Write real models uncompressed or with joblib's default compression.",
    .security = true,
};

}  // namespace ckpt::rules::joblib_decompression_bomb
