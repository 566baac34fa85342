// tar-member-past-end: Tar member data runs past the end of the file.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_member_past_end {

const RuleInfo kRule{
    .id = "tar-member-past-end",
    .name = "TarMemberPastEnd",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member data runs past the end of the file",
    .explanation =
        "A member declares more data (octal or base-256 size, or a pax size record) than the file "
        "holds: the tar was truncated, or its size field was altered to hide or swallow bytes.",
    .remediation = "Re-download or re-create the tar.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_member_past_end
