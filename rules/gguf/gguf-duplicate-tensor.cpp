// gguf-duplicate-tensor: Duplicate GGUF tensor name.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_duplicate_tensor {

const RuleInfo kRule{
    .id = "gguf-duplicate-tensor",
    .name = "GgufDuplicateTensor",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Duplicate GGUF tensor name",
    .explanation = "Two tensors under one name: the one a loader keeps depends on the loader.",
    .remediation = "Regenerate the file with unique tensor names.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_duplicate_tensor
