// HDF5 files for tests, written by libhdf5 itself (Debian's libhdf5-dev) in memory: the core
// driver without a backing store, the image taken with H5Fget_file_image. Only tests link
// libhdf5; the audit reads what this writes through its isolated helper. Each call adds one
// object; Image() closes the file and returns its bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace h5b {

class FileBuilder {
 public:
  /// `userblock`: bytes reserved before the superblock (0, or a power of two >= 512).
  explicit FileBuilder(std::uint64_t userblock = 0);
  ~FileBuilder();
  FileBuilder(const FileBuilder&) = delete;
  FileBuilder& operator=(const FileBuilder&) = delete;

  /// A dataset at `path` (intermediate groups created) of `dtype` ("F32", "F16", "F64", "I64",
  /// "I32", "U8", "BOOL" as h5py stores numpy bool, "STR" a fixed string) and `shape`, zeros.
  FileBuilder& Dataset(const std::string& path, const std::string& dtype, const std::vector<std::uint64_t>& shape);
  /// The same, chunked and filtered by `filter` (1 deflate, or a plugin id, recorded optional
  /// so libhdf5 writes it without the plugin).
  FileBuilder& FilteredDataset(const std::string& path, unsigned filter);
  /// A float32 dataset of 4 elements stored in the external raw file `file`.
  FileBuilder& ExternalStorageDataset(const std::string& path, const std::string& file);
  /// A virtual float32 dataset of 4 elements mapped from `dataset` of `file`.
  FileBuilder& VirtualDataset(const std::string& path, const std::string& file, const std::string& dataset);
  FileBuilder& Group(const std::string& path);
  FileBuilder& ExternalLink(const std::string& path, const std::string& file, const std::string& object);
  FileBuilder& SoftLink(const std::string& path, const std::string& target);
  /// A root attribute holding `text` as h5py writes a str (variable-length UTF-8) or, with
  /// `fixed`, as it writes bytes (a fixed-length string).
  FileBuilder& Attribute(const std::string& name, const std::string& text, bool fixed = false);
  /// A root attribute that is an int64 array (not a string).
  FileBuilder& IntegerAttribute(const std::string& name, std::int64_t value);

  std::string Image();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// A Keras 3 model.weights.h5 of a Dense(2) layer on 3 inputs, in H5IOStore's layout
/// (layers/dense/vars/0 kernel F32 [3, 2], layers/dense/vars/1 bias F32 [2]).
std::string KerasWeights();

/// A Keras 2 model.h5 (keras.models.save_model, h5 format): root attributes model_config
/// (given), keras_version, backend; model_weights/dense/dense/{kernel:0,bias:0}.
std::string Keras2Model(const std::string& model_config);

/// A Keras 3 Sequential config.json of InputLayer and Dense(2), as saving_lib writes it;
/// `extra_layers` (JSON objects, comma-separated) are appended to its layers.
std::string KerasSequentialConfig(const std::string& extra_layers = "");
/// A .keras zip: metadata.json, config.json, model.weights.h5, then `extra` members;
/// deflated as Keras writes them unless `stored`.
std::string KerasArchive(
    const std::string& config, const std::vector<std::pair<std::string, std::string>>& extra = {}, bool stored = false,
    const std::string& metadata = R"({"keras_version": "3.6.0", "date_saved": "2024-10-01@12:00:00"})");

}  // namespace h5b
