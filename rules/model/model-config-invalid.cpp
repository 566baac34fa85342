// model-config-invalid: a configuration file does not parse (config.json not valid JSON, a YAML
// config the strict reading of formats.md section 9 refuses).
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
    .title = "A configuration file does not parse",
    .explanation =
        "A configuration file loaders read (config.json, tokenizer_config.json) that does not "
        "parse as a JSON object fails to load, or loads differently in another parser. A YAML "
        "configuration with aliases, anchors, tags or duplicate keys is not read, so the import "
        "targets it may hold cannot be checked.",
    .remediation = "Fix or regenerate the configuration file.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const auto& [file, why] : artifact.model->invalid_configs) {
    const bool yaml = file.ends_with(".yaml") || file.ends_with(".yml");
    sink.Report(
        kRule, FileLocation(file),
        QuoteForMessage(file) + (yaml ? " is refused as a configuration: " : " is not valid JSON: ") + why + ".");
  }
}

}  // namespace ckpt::rules::model_config_invalid
