// baseline-acceptance-void: A reviewed acceptance no longer covers the file it names.
// Reported by the gate (engine/gate.cpp) about a file an acceptance of the policy or baseline names.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::baseline_acceptance_void {

const RuleInfo kRule{
    .id = "baseline-acceptance-void",
    .name = "BaselineAcceptanceVoid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A reviewed acceptance does not cover the file it names",
    .explanation =
        "A reviewed acceptance accepts the findings of one file only for the bytes someone reviewed (its "
        "SHA-256) and only for the globals, calls and rules it lists. Here the file's bytes are not those "
        "bytes, were not hashed, or hold findings the entry does not name, so those findings count again. "
        "This finding says which.",
    .remediation =
        "Review the file as it is now; then record its new SHA-256 and the globals and calls it needs in the "
        "entry (with a new reason and expiry), or restore the reviewed file. Audit without --no-hash so the "
        "bytes can be compared.",
    .security = false,
    .tier = Tier::kConsequence,
};

}  // namespace ckpt::rules::baseline_acceptance_void
