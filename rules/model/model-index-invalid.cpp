// model-index-invalid: Shard index of a model folder is unreadable.
// Detected while reading, by lib/formats/model_folder_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::model_index_invalid {

const RuleInfo kRule{
    .id = "model-index-invalid",
    .name = "ModelIndexInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Shard index of a model folder is unreadable",
    .explanation =
        "A model folder's <prefix>.safetensors.index.json must be strict JSON (bounded, no "
        "duplicate keys) holding an object with a weight_map of tensor names to file names, and "
        "an optional metadata object whose total_size is a JSON integer. Otherwise loaders read "
        "it differently or not at all.",
    .remediation = "Re-export the model with save_pretrained, or fix the index by hand.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::model_index_invalid
