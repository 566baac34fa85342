// tar-global-header: Pax global header that changes every member.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_global_header {

const RuleInfo kRule{
    .id = "tar-global-header",
    .name = "TarGlobalHeader",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pax global header that changes every member",
    .explanation =
        "A pax global header ('g') sets attributes for every member after it. Only comment and "
        "mtime are harmless; a global path, size or other record changes how some readers read "
        "every later member.",
    .remediation = "Re-create the tar without global extended headers.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_global_header
