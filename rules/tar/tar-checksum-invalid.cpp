// tar-checksum-invalid: Tar header fails its checksum.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_checksum_invalid {

const RuleInfo kRule{
    .id = "tar-checksum-invalid",
    .name = "TarChecksumInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar header fails its checksum",
    .explanation =
        "A tar header's checksum covers its name, size and type. A header that fails it is "
        "damaged or is not a header at all, and nothing after it can be located: the tar is "
        "refused there.",
    .remediation = "Re-create the tar from the artifact directory with GNU tar, bsdtar or Python's tarfile.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_checksum_invalid
