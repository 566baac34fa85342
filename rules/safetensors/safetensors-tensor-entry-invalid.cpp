// safetensors-tensor-entry-invalid: Tensor entry is not {dtype, shape, data_offsets}.
// Detected while reading, by lib/formats/safetensors_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::safetensors_tensor_entry_invalid {

const RuleInfo kRule{
    .id = "safetensors-tensor-entry-invalid",
    .name = "SafetensorsTensorEntryInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tensor entry is not {dtype, shape, data_offsets}",
    .explanation =
        "Every tensor entry is an object with exactly dtype (string), shape (array of "
        "JSON integers) and data_offsets (two JSON integers); other or missing keys, or "
        "wrong types, are refused.",
    .remediation = "Re-export the weight file with safetensors.",
    .security = false,
};

}  // namespace ckpt::rules::safetensors_tensor_entry_invalid
