// gguf-header-invalid: Not a GGUF file of a version the audit reads.
// Detected while reading, by lib/formats/gguf_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::gguf_header_invalid {

const RuleInfo kRule{
    .id = "gguf-header-invalid",
    .name = "GgufHeaderInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Not a GGUF file of a version the audit reads",
    .explanation =
        "GGUF versions 2 and 3 are read, little-endian only: version 1 has 32-bit counts, 0 and 4 "
        "and above do not exist, and a byte-swapped version is a big-endian file ggml's loader "
        "does not take.",
    .remediation = "Convert the model again with a current llama.cpp (convert_hf_to_gguf.py).",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::gguf_header_invalid
