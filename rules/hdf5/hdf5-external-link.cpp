// hdf5-external-link: an HDF5 file links to an object in another file.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5ExternalLink.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_external_link {

const RuleInfo kRule{
    .id = "hdf5-external-link",
    .name = "Hdf5ExternalLink",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An HDF5 file links to an object in another file",
    .explanation =
        "An external link names another HDF5 file by path (and a user-defined link runs a link class the reader "
        "supplies); h5py opens that file when the link is read, so loading the checkpoint reads data chosen by whoever "
        "controls that path. The audit never traverses it.",
    .remediation = "Copy the linked data into the file (h5py's copy) or remove the link.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_external_link
