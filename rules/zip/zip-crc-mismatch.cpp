// zip-crc-mismatch: Zip member CRC-32 does not match its data.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_crc_mismatch {

const RuleInfo kRule{
    .id = "zip-crc-mismatch",
    .name = "ZipCrcMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Zip member CRC-32 does not match its data",
    .explanation =
        "torch does not check CRC-32, so a member whose bytes were changed after writing still "
        "loads; scanners that stop at a bad CRC see nothing (CVE-2025-10156).",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::zip_crc_mismatch
