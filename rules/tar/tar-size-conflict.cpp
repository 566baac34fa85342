// tar-size-conflict: Tar member whose pax size disagrees with its header size.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_size_conflict {

const RuleInfo kRule{
    .id = "tar-size-conflict",
    .name = "TarSizeConflict",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member whose pax size disagrees with its header size",
    .explanation =
        "A pax size record overrides the header's size; when both are given and differ, readers "
        "that honour the pax record and readers that do not find different data and different "
        "next headers.",
    .remediation = "Re-create the tar with a standard tar writer.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_size_conflict
