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
        "Python files in a model folder, an auto_map or custom_pipelines in a configuration file, a diffusers "
        "component or custom pipeline outside diffusers and transformers, or a sentence-transformers module of "
        "another package make the loader import code from the repository when loaded with trust_remote_code; "
        "an attention implementation naming a Hub repository (_attn_implementation: \"org/kernel\") makes "
        "transformers download and run it even without trust_remote_code (CVE-2026-4372, reported as an error). "
        "That code runs with the loader's rights.",
    .remediation = "Review the code before loading with trust_remote_code, or use a model that needs none.",
    .security = true,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelFolder::RemoteCode& code : artifact.model->remote_code) {
    sink.Report(kRule, FileLocation(code.file), code.lead + ": " + QuoteForMessage(code.file) + ", " + code.why + ".",
                code.without_trust ? std::optional(Severity::kError) : std::nullopt);
  }
}

}  // namespace ckpt::rules::model_remote_code
