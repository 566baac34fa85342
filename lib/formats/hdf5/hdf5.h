// HDF5 files (Keras/TF `model.h5`, `tf_model.h5`; formats.md section 6), read only through the
// isolated helper ckpt-h5probe (h5probe_client.h): the audit never links libhdf5 and never
// parses HDF5 itself. Recognised by the signature at offset 0 or at a power of two from 512
// (a user block). The helper's answer is checked field by field: links leaving the file,
// external and virtual storage, filters libhdf5 would load as plugins and the budgets are
// findings; datasets are listed by path; Keras' root `model_config` and `training_config` go
// through the Keras config analyser. A `.keras` zip's weights member is read the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/json/json_value.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt::hdf5 {

struct Hdf5Reading {
  bool read = false;  ///< the helper answered and libhdf5 read the file
  std::vector<StoredTensor> tensors;
  std::optional<std::string> model_config;  ///< root attributes Keras writes, when they are text
  std::optional<std::string> training_config;
  std::optional<std::string> keras_version;
};

/// Reads the HDF5 image `bytes` (a file, or a member inflated or in place) through the helper
/// and reports the HDF5 rules at `offset` (where the image starts in the file `report` names);
/// `subject` opens each message ("The file", "Member \"model.weights.h5\""). The error is an
/// I/O failure of the audit itself.
IoResult<Hdf5Reading> ReadHdf5Image(const RandomAccessFile& bytes, const FileReporter& report, std::uint64_t offset,
                                    const std::string& subject);

/// Reports what a parsed helper answer `root` says (the HDF5 rules) into `out`; a malformed
/// answer is hdf5-reader-failed. ReadHdf5Image's second half, apart for the fuzz target.
void ReadProbeAnswer(json::Value root, const FileReporter& report, std::uint64_t offset, const std::string& subject,
                     Hdf5Reading& out);

/// Offset of the HDF5 signature in `file` (0, 512, 1024, ...), or nullopt.
std::optional<std::uint64_t> FindHdf5Signature(const RandomAccessFile& file);

}  // namespace ckpt::hdf5
