// gguf-split-incomplete: GGUF split set incomplete or misnumbered.
// Detected while reading, by lib/formats/gguf/gguf_reader.cpp (split sets: the engine).
#include "rules/catalog.h"

namespace ckpt::rules::gguf_split_incomplete {

const RuleInfo kRule{
    .id = "gguf-split-incomplete",
    .name = "GgufSplitIncomplete",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "GGUF split set incomplete or misnumbered",
    .explanation =
        "A split model (split.count parts named -00001-of-0000N.gguf) loads only as a whole: a "
        "missing part, a part whose split.no or split.count disagrees with its name, or a second "
        "set mixed in.",
    .remediation = "Download every part of the split model, or merge it with llama-gguf-split --merge.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::gguf_split_incomplete
