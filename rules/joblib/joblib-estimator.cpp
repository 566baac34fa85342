// joblib-estimator: a joblib file makes a scikit-learn object, whose loading runs its code.
// Detected while reading: the pickle analyser (joblib policy) reports Diag::kJoblibEstimator.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::joblib_estimator {

const RuleInfo kRule{
    .id = "joblib-estimator",
    .name = "JoblibEstimator",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A joblib file holds a scikit-learn estimator",
    .explanation =
        "The class is one of scikit-learn's estimators (the pinned all_estimators() table) or a class "
        "they pickle inside them, made the way pickle writes it and given a dict of plain attributes. "
        "Loading it imports scikit-learn and runs that version's __setstate__ and class code: the file "
        "is only as safe as the scikit-learn installed, and trusts its publisher.",
    .remediation = "Prefer skops (skops.io), which loads only the types it is told to trust; pin scikit-learn.",
    .security = true,
};

}  // namespace ckpt::rules::joblib_estimator
