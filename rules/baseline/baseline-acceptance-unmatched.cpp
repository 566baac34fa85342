// baseline-acceptance-unmatched: A reviewed acceptance accepted nothing in this run.
// Reported by the gate (engine/gate.cpp) about a policy or baseline file, once the run's audits are done.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::baseline_acceptance_unmatched {

const RuleInfo kRule{
    .id = "baseline-acceptance-unmatched",
    .name = "BaselineAcceptanceUnmatched",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A reviewed acceptance matches no file or no finding",
    .explanation =
        "A reviewed acceptance names one file by its path, relative to the policy's root. Here no file the run "
        "audited has that path (often a path copied relative to the model folder, or to another folder), or the "
        "file has no finding the entry could accept. An entry that silently matches nothing hides a mistake: "
        "the review it records holds for no file, and the gate passes or fails without it.",
    .remediation =
        "Write the path as the finding's location.path in the JSON report gives it (relative to the policy's "
        "root), or let --write-acceptances write the entry; remove entries for files that no longer need one.",
    .security = false,
    .tier = Tier::kConsequence,
};

}  // namespace ckpt::rules::baseline_acceptance_unmatched
