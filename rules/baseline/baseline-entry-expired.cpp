// baseline-entry-expired: Baseline entry past its expiry.
// Reported by the gate (engine/gate.cpp) about a baseline file.
#include "rules/catalog.h"

namespace ckpt::rules::baseline_entry_expired {

const RuleInfo kRule{
    .id = "baseline-entry-expired",
    .name = "BaselineEntryExpired",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kWarning,
    .title = "Baseline entry past its expiry",
    .explanation =
        "A baseline accepts a finding only until the date it gives. This entry's date has passed, so it "
        "suppresses nothing any more: the findings it covered count again, and the entry itself is reported "
        "so that it is either renewed with a reason or removed.",
    .remediation =
        "Fix what the entry accepted, or renew it with a new expires date and a reason; remove entries "
        "that match nothing.",
    .security = false,
};

}  // namespace ckpt::rules::baseline_entry_expired
