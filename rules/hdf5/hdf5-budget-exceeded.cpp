// hdf5-budget-exceeded: an HDF5 file exceeds the reader's budget.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5BudgetExceeded.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_budget_exceeded {

const RuleInfo kRule{
    .id = "hdf5-budget-exceeded",
    .name = "Hdf5BudgetExceeded",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An HDF5 file exceeds the reader's budget",
    .explanation =
        "More than 1,000,000 links, groups nested past 64 levels, or a root attribute past 100,000,000 bytes: the walk "
        "stops there, so the file is not fully read and does not pass.",
    .remediation = "Split the file, or check why it holds so many objects.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_budget_exceeded
