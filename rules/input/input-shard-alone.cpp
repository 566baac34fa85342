// input-shard-alone: A file given alone that its folder makes one part of a model.
// Detected while reading, by lib/load/input.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::input_shard_alone {

const RuleInfo kRule{
    .id = "input-shard-alone",
    .name = "InputShardAlone",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A shard audited without the model it belongs to",
    .explanation =
        "An index beside the file maps tensors to it (or a Lensemble header.json is beside its "
        "weights): loaders read it as one part of the folder's model. Audited alone, the other "
        "shards, the index and the header are never checked, so a model with a shard missing, "
        "replaced or beside a malicious pytorch_model.bin would pass shard by shard.",
    .remediation =
        "Audit the folder that holds the model (in CI: `paths:` naming model folders, not "
        "`**/*.safetensors`).",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::input_shard_alone
