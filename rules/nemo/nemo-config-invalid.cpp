// nemo-config-invalid: a NeMo archive's model_config.yaml is refused.
// Detected while reading: lib/formats/nemo reports Diag::kNemoConfigInvalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::nemo_config_invalid {

const RuleInfo kRule{
    .id = "nemo-config-invalid",
    .name = "NemoConfigInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A NeMo archive's model_config.yaml is refused",
    .explanation =
        "NeMo restores a model by building what model_config.yaml describes. A config over 10,000,000 bytes, YAML that "
        "does not parse, aliases and anchors (a billion-laughs expansion), tags (!!python/object and its like), "
        "duplicate keys (loaders keep one value), more than one document or nesting past 64 levels is not read: its "
        "meaning is not one.",
    .remediation =
        "Save the model again with NeMo's save_to, or write the config as plain YAML without anchors, tags or repeated "
        "keys.",
    .security = true,
};

}  // namespace ckpt::rules::nemo_config_invalid
