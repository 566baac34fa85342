// zip-ambiguous: A zip that zip readers would read differently.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_ambiguous {

const RuleInfo kRule{
    .id = "zip-ambiguous",
    .name = "ZipAmbiguous",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Zip readers would disagree on this archive",
    .explanation =
        "miniz (torch.load), Python's zipfile and Info-ZIP unzip each find the central directory "
        "their own way: the last end-record signature near the end, a zip64 locator wherever it "
        "points, names looked up with or without case. A second end record or locator, a comment "
        "that does not reach the end, directory entries beyond the count, bytes no entry claims or "
        "names equal but for case let one reader load members another never listed (a data.pkl "
        "that calls posix.system).",
    .remediation =
        "Regenerate the checkpoint with torch.save (or better, as safetensors); never accept an "
        "archive whose directory has more than one reading.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::zip_ambiguous
