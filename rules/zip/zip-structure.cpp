// zip-structure: Malformed torch zip container.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_structure {

const RuleInfo kRule{
    .id = "zip-structure",
    .name = "ZipStructure",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Malformed torch zip container",
    .explanation =
        "The zip's end records, central directory or local headers are missing, out of bounds, "
        "overlapping, encrypted, duplicated or preceded by other bytes. Zip readers disagree on "
        "such files, so a scanner and torch can see different members.",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::zip_structure
