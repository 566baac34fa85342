// input-compressed: Compressed archive given as input.
// Detected while reading, by lib/load/input.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::input_compressed {

const RuleInfo kRule{
    .id = "input-compressed",
    .name = "InputCompressed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Compressed archive given as input",
    .explanation =
        "A gzip, bzip2, xz or zstd stream is not read: the audit reads uncompressed tars in "
        "place, without extracting or decompressing to disk.",
    .remediation = "Decompress it first (gunzip, bunzip2, unxz, unzstd) and audit the tar.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_compressed
