// tar-end-marker-missing: Tar ends without its end marker.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_end_marker_missing {

const RuleInfo kRule{
    .id = "tar-end-marker-missing",
    .name = "TarEndMarkerMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar ends without its end marker",
    .explanation =
        "A tar ends with two zero blocks. Without them the archive was cut short: members after "
        "the cut are missing and the tar is never a pass.",
    .remediation = "Re-download or re-create the tar.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_end_marker_missing
