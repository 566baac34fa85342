// tar-extension-repeated: Tar member with repeated or disagreeing extension records.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_extension_repeated {

const RuleInfo kRule{
    .id = "tar-extension-repeated",
    .name = "TarExtensionRepeated",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member with repeated or disagreeing extension records",
    .explanation =
        "A member may have at most one pax extended header and one GNU long-name record, agreeing "
        "with each other. Two of one kind, or a pax path and a GNU long name that differ, mean "
        "readers pick different names.",
    .remediation = "Re-create the tar with one writer and one format.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_extension_repeated
