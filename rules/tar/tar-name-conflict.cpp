// tar-name-conflict: Tar member whose ustar name disagrees with its long name.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_name_conflict {

const RuleInfo kRule{
    .id = "tar-name-conflict",
    .name = "TarNameConflict",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member whose ustar name disagrees with its long name",
    .explanation =
        "Beside a pax path or GNU long name, writers store in the ustar name field nothing, the "
        "name's first 100 bytes, or that with non-ASCII replaced by '?'. Any other ustar name is "
        "a second file name for readers that ignore the extension.",
    .remediation = "Re-create the tar with a standard tar writer.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_name_conflict
