// zip-header-mismatch: Zip local header differs from the central directory.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_header_mismatch {

const RuleInfo kRule{
    .id = "zip-header-mismatch",
    .name = "ZipHeaderMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Zip local header differs from the central directory",
    .explanation =
        "A member's local header (or data descriptor) and its central directory entry disagree on "
        "name, flags, method, CRC-32 or sizes: one reader walks local headers, another the "
        "central directory, and they read different files (CVE-2025-1944).",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::zip_header_mismatch
