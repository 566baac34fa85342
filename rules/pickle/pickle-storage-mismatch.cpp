// pickle-storage-mismatch: Storage reference does not match its record.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_storage_mismatch {

const RuleInfo kRule{
    .id = "pickle-storage-mismatch",
    .name = "PickleStorageMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Storage reference does not match its record",
    .explanation =
        "Every storage reference must be ('storage', a torch storage type, key, location, numel) "
        "and match a record of exactly numel x element size bytes; one key referenced with two "
        "types or sizes, a missing record and a record nobody references are all signs of a "
        "crafted file.",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::pickle_storage_mismatch
