// tar-device-member: Device node in a tar artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_device_member {

const RuleInfo kRule{
    .id = "tar-device-member",
    .name = "TarDeviceMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Device node in a tar artifact",
    .explanation =
        "An artifact holds regular files only; a character or block device has no place in one, "
        "and extracting it creates a device node.",
    .remediation = "Leave device nodes out of the artifact.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_device_member
