// hdf5-virtual-dataset: an HDF5 dataset is a virtual dataset mapping other files.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5VirtualDataset.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_virtual_dataset {

const RuleInfo kRule{
    .id = "hdf5-virtual-dataset",
    .name = "Hdf5VirtualDataset",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An HDF5 dataset is a virtual dataset mapping other files",
    .explanation =
        "A virtual dataset (H5D_VIRTUAL layout) maps its elements from datasets of other files, named by path; reading "
        "it opens them, outside the file audited.",
    .remediation = "Materialise the virtual dataset into a regular one.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_virtual_dataset
