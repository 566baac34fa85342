// pickle-trailing-data: Bytes after the last pickle.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_trailing_data {

const RuleInfo kRule{
    .id = "pickle-trailing-data",
    .name = "PickleTrailingData",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Bytes after the last pickle",
    .explanation =
        "Bytes after a pickle's STOP that are not a further pickle are ignored by one loader and "
        "read by another; a torch.save file has none.",
    .remediation = "Regenerate the file; remove what was appended.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::pickle_trailing_data
