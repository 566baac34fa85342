// tar-hardlink-member: Hard link in a tar artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_hardlink_member {

const RuleInfo kRule{
    .id = "tar-hardlink-member",
    .name = "TarHardlinkMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Hard link in a tar artifact",
    .explanation =
        "An artifact holds regular files only. A hard link member has no data of its own: readers "
        "resolve it differently (or to a file outside the archive on extraction).",
    .remediation = "Store the file itself, once.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_hardlink_member
