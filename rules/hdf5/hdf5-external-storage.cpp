// hdf5-external-storage: an HDF5 dataset keeps its data in external files.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5ExternalStorage.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_external_storage {

const RuleInfo kRule{
    .id = "hdf5-external-storage",
    .name = "Hdf5ExternalStorage",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An HDF5 dataset keeps its data in external files",
    .explanation =
        "A dataset with external storage (H5Pset_external) stores its elements in raw files named by path; reading the "
        "dataset opens them, outside the file audited.",
    .remediation = "Rewrite the dataset with its data inside the file.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_external_storage
