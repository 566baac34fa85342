// gguf-split-inconsistent: GGUF split set holds the wrong tensors.
// Detected while reading, by lib/formats/gguf/gguf_reader.cpp (split sets: the engine).
#include "rules/catalog.h"

namespace ckpt::rules::gguf_split_inconsistent {

const RuleInfo kRule{
    .id = "gguf-split-inconsistent",
    .name = "GgufSplitInconsistent",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF split set holds the wrong tensors",
    .explanation =
        "split.tensors.count must equal the tensors the parts hold, and no tensor may be in two "
        "parts: otherwise the model loaded depends on the order parts are read.",
    .remediation = "Regenerate the split with llama-gguf-split.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_split_inconsistent
