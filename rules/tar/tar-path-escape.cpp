// tar-path-escape: Tar member name leaves the artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_path_escape {

const RuleInfo kRule{
    .id = "tar-path-escape",
    .name = "TarPathEscape",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member name leaves the artifact",
    .explanation =
        "An absolute member name or one with a '..' component would be written outside the "
        "extraction folder (path traversal). It is refused and never read.",
    .remediation = "Re-create the tar with names relative to the artifact root.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_path_escape
