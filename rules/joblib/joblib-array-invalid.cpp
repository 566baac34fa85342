// joblib-array-invalid: a NumpyArrayWrapper whose state or bytes joblib would not write.
// Detected while reading: the pickle analyser (joblib policy) reports Diag::kJoblibArrayInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::joblib_array_invalid {

const RuleInfo kRule{
    .id = "joblib-array-invalid",
    .name = "JoblibArrayInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A joblib array wrapper is malformed",
    .explanation =
        "joblib writes each array as a NumpyArrayWrapper with a fixed state (subclass, shape, order, "
        "dtype, allow_mmap, alignment), then a padding-length byte, that many 0xff bytes and exactly "
        "numel x itemsize bytes of data, outside any pickle frame. Other state keys, padding that is "
        "not 0xff, data past the end or inside a frame make joblib and a plain reader see different "
        "bytes, so the analysis stops there.",
    .remediation = "Write the file again with joblib.dump, or store the arrays as safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::joblib_array_invalid
