// tar-fifo-member: FIFO in a tar artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_fifo_member {

const RuleInfo kRule{
    .id = "tar-fifo-member",
    .name = "TarFifoMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "FIFO in a tar artifact",
    .explanation =
        "An artifact holds regular files only; a FIFO has no data and blocks a reader that opens "
        "it.",
    .remediation = "Leave FIFOs out of the artifact.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_fifo_member
