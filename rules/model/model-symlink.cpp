// model-symlink: Symlink in a model folder outside a hub cache.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_symlink {

const RuleInfo kRule{
    .id = "model-symlink",
    .name = "ModelSymlink",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Symlink in a model folder outside a hub cache",
    .explanation =
        "Outside a Hugging Face cache snapshot a model folder holds regular files; a symlink can "
        "point anywhere on the machine that audits or loads it, and is never followed.",
    .remediation = "Replace the link by the file it names, or audit the hub cache snapshot itself.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model || artifact.model->repository) return;
  for (const ModelFolder::Link& link : artifact.model->links) {
    sink.Report(kRule, FileLocation(link.name),
                QuoteForMessage(link.name) + " is a symlink to " + QuoteForMessage(link.target) +
                    "; a symlink outside a Hugging Face cache snapshot is never followed.");
  }
}

}  // namespace ckpt::rules::model_symlink
