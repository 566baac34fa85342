// tar-data-after-end: Bytes after the tar's end marker.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_data_after_end {

const RuleInfo kRule{
    .id = "tar-data-after-end",
    .name = "TarDataAfterEnd",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bytes after the tar's end marker",
    .explanation =
        "After the end marker a tar may hold only zero padding (GNU tar pads to its record size). "
        "Other bytes are content no tar reader lists, travelling with the artifact unverified.",
    .remediation = "Re-create the tar; ship other material separately.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_data_after_end
