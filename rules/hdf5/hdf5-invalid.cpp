// hdf5-invalid: libhdf5 refuses the HDF5 file.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5Invalid.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_invalid {

const RuleInfo kRule{
    .id = "hdf5-invalid",
    .name = "Hdf5Invalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "libhdf5 refuses the HDF5 file",
    .explanation =
        "libhdf5 itself (through the isolated helper) cannot open the file or one of its datasets: a bad superblock, a "
        "truncated file whose end address lies past its last byte, corrupt object headers. h5py and Keras cannot load "
        "it either.",
    .remediation = "Re-export the file, or fetch it again if it was truncated in transfer.",
    .security = false,
};

}  // namespace ckpt::rules::hdf5_invalid
