// model-remote-code: Loading this model runs code from the repository.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_remote_code {

const RuleInfo kRule{
    .id = "model-remote-code",
    .name = "ModelRemoteCode",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Loading this model runs code from the repository",
    .explanation =
        "Python files in a model folder, or an auto_map in config.json or tokenizer_config.json, "
        "make transformers import code from the repository when loaded with trust_remote_code. "
        "That code runs with the loader's rights.",
    .remediation = "Review the code before loading with trust_remote_code, or use a model that needs none.",
    .security = true,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const auto& [file, why] : artifact.model->remote_code) {
    sink.Report(kRule, FileLocation(file),
                "loading this model runs code from the repository: " + QuoteForMessage(file) + ", " + why + ".");
  }
}

}  // namespace ckpt::rules::model_remote_code
