// model-path-escape: Hub-cache symlink that leaves its repository.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_path_escape {

const RuleInfo kRule{
    .id = "model-path-escape",
    .name = "ModelPathEscape",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Hub-cache symlink that leaves its repository",
    .explanation =
        "In models--ORG--NAME/snapshots/REV, a symlink is followed only when it resolves, without "
        "passing through another link, to a regular file inside that models--ORG--NAME folder "
        "(its blobs). Anything else points outside the repository the cache says it holds (path "
        "traversal).",
    .remediation = "Delete the snapshot and download it again; check what placed the link.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model || !artifact.model->repository) return;
  for (const ModelFolder::Link& link : artifact.model->links) {
    if (link.refusal.empty()) continue;
    sink.Report(kRule, FileLocation(link.name),
                QuoteForMessage(link.name) + " is a symlink to " + QuoteForMessage(link.target) +
                    " that is not followed: " + link.refusal + ".");
  }
}

}  // namespace ckpt::rules::model_path_escape
