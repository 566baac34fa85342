// hdf5-reader-failed: the isolated HDF5 reader crashed, timed out or gave no answer.
// Detected while reading: lib/formats/hdf5 reports Diag::kHdf5ReaderFailed.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::hdf5_reader_failed {

const RuleInfo kRule{
    .id = "hdf5-reader-failed",
    .name = "Hdf5ReaderFailed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "The isolated HDF5 reader crashed, timed out or gave no answer",
    .explanation =
        "HDF5 is read only by ckpt-h5probe, a helper process linked with libhdf5 and limited to 2 GiB of address space "
        "plus the file, 20 s of CPU, 60 s of wall-clock time, no files written and no children. A signal, a limit hit, "
        "a non-zero exit or an answer that is missing, too long or malformed means the file was not read: it never "
        "passes, and a file that makes libhdf5 misbehave is suspect in its own right.",
    .remediation =
        "Check that ckpt-h5probe is installed beside ckpt-audit; a file that crashes or stalls libhdf5 must not be "
        "loaded with h5py or Keras either.",
    .security = true,
};

}  // namespace ckpt::rules::hdf5_reader_failed
