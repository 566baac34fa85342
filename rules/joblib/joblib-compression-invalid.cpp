// joblib-compression-invalid: a joblib file's compressed stream is corrupt or truncated.
// Detected while reading: lib/formats/joblib reports Diag::kJoblibCompressionInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::joblib_compression_invalid {

const RuleInfo kRule{
    .id = "joblib-compression-invalid",
    .name = "JoblibCompressionInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A joblib file's compressed stream is corrupt or truncated",
    .explanation =
        "zlib, libbz2 or liblzma refused the stream, or it ends before its end marker. What a corrupt "
        "stream decodes to depends on the decoder and on how far it reads, so nothing in it is analysed.",
    .remediation = "Fetch or write the file again; joblib.dump writes complete streams.",
    .security = true,
};

}  // namespace ckpt::rules::joblib_compression_invalid
