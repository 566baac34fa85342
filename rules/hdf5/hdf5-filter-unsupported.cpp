// hdf5-filter-unsupported: an HDF5 dataset uses a filter libhdf5 loads as a plugin.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5FilterUnsupported.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_filter_unsupported {

const RuleInfo kRule{
    .id = "hdf5-filter-unsupported",
    .name = "Hdf5FilterUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An HDF5 dataset uses a filter libhdf5 loads as a plugin",
    .explanation =
        "Filters other than libhdf5's own (deflate, shuffle, fletcher32, szip, nbit, scaleoffset) are plugins: reading "
        "the dataset makes libhdf5 dlopen native code found through HDF5_PLUGIN_PATH. The audit's reader never loads a "
        "plugin.",
    .remediation = "Rewrite the dataset with a built-in filter such as deflate.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_filter_unsupported
