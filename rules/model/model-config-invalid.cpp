// model-config-invalid: config.json is not valid JSON.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_config_invalid {

const RuleInfo kRule{
    .id = "model-config-invalid",
    .name = "ModelConfigInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "config.json is not valid JSON",
    .explanation =
        "A configuration file loaders read (config.json, tokenizer_config.json) that does not "
        "parse as a JSON object fails to load, or loads differently in another parser.",
    .remediation = "Fix or regenerate the configuration file.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const auto& [file, why] : artifact.model->invalid_configs) {
    sink.Report(kRule, FileLocation(file), QuoteForMessage(file) + " is not valid JSON: " + why + ".");
  }
}

}  // namespace ckpt::rules::model_config_invalid
