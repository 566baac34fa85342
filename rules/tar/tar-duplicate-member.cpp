// tar-duplicate-member: Tar member name appears twice.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_duplicate_member {

const RuleInfo kRule{
    .id = "tar-duplicate-member",
    .name = "TarDuplicateMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member name appears twice",
    .explanation =
        "Two members with one name mean one reader extracts the first and another the last: the "
        "tar no longer says which file is the artifact's. Neither copy is read.",
    .remediation = "Re-create the tar with each file once.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_duplicate_member
