// tar-symlink-member: Symbolic link in a tar artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_symlink_member {

const RuleInfo kRule{
    .id = "tar-symlink-member",
    .name = "TarSymlinkMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Symbolic link in a tar artifact",
    .explanation =
        "An artifact holds regular files only. A symbolic link can point anywhere on the machine "
        "that extracts it, and another reader would follow it.",
    .remediation = "Replace the link by the file it names, or leave it out of the artifact.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_symlink_member
