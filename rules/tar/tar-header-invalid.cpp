// tar-header-invalid: Tar header or extension record is malformed.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_header_invalid {

const RuleInfo kRule{
    .id = "tar-header-invalid",
    .name = "TarHeaderInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar header or extension record is malformed",
    .explanation =
        "A header without a ustar, pax or GNU magic, a numeric field that is not octal (or a "
        "negative base-256 number), a malformed pax record or an oversized extension record: "
        "readers would parse it differently, so the tar is refused there.",
    .remediation = "Re-create the tar with GNU tar, bsdtar or Python's tarfile (ustar, pax or GNU format).",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_header_invalid
