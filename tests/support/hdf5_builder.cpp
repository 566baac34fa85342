#include "tests/support/hdf5_builder.h"

#include <hdf5.h>

#include <stdexcept>
#include <utility>

#include "tests/support/pickle_builder.h"

namespace h5b {
namespace {

void Check(herr_t status, const char* what) {
  if (status < 0) throw std::runtime_error(std::string("libhdf5 refused to write: ") + what);
}
hid_t Checked(hid_t id, const char* what) {
  if (id < 0) throw std::runtime_error(std::string("libhdf5 refused to write: ") + what);
  return id;
}

// h5py's numpy bool: an int8 enum {FALSE: 0, TRUE: 1}.
hid_t BoolType() {
  const hid_t type = Checked(H5Tenum_create(H5T_NATIVE_INT8), "bool enum");
  signed char value = 0;
  Check(H5Tenum_insert(type, "FALSE", &value), "FALSE");
  value = 1;
  Check(H5Tenum_insert(type, "TRUE", &value), "TRUE");
  return type;
}

hid_t TypeOf(const std::string& dtype) {
  if (dtype == "F32") return H5Tcopy(H5T_IEEE_F32LE);
  if (dtype == "F64") return H5Tcopy(H5T_IEEE_F64LE);
  if (dtype == "F16") {
    const hid_t type = H5Tcopy(H5T_IEEE_F32LE);  // as h5py builds float16
    Check(H5Tset_fields(type, 15, 10, 5, 0, 10), "f16 fields");
    Check(H5Tset_size(type, 2), "f16 size");
    Check(H5Tset_ebias(type, 15), "f16 bias");
    return type;
  }
  if (dtype == "I64") return H5Tcopy(H5T_STD_I64LE);
  if (dtype == "I32") return H5Tcopy(H5T_STD_I32LE);
  if (dtype == "U8") return H5Tcopy(H5T_STD_U8LE);
  if (dtype == "BOOL") return BoolType();
  if (dtype == "STR") {
    const hid_t type = H5Tcopy(H5T_C_S1);
    Check(H5Tset_size(type, 8), "string size");
    return type;
  }
  throw std::invalid_argument("no such test dtype: " + dtype);
}

}  // namespace

struct FileBuilder::State {
  hid_t file = -1;
  hid_t lcpl = -1;  // creates intermediate groups
  hid_t gcpl = -1;  // groups without modification times, as h5py writes them: the image is reproducible

  // Creates the groups above `path` explicitly (with gcpl), so none carries a time.
  void Parents(const std::string& path) const {
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      const std::string parent = path.substr(0, slash);
      if (H5Lexists(file, parent.c_str(), H5P_DEFAULT) > 0) continue;
      H5Gclose(Checked(H5Gcreate2(file, parent.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), "group"));
    }
  }
  // A dataset creation list without modification times.
  [[nodiscard]] static hid_t Untimed() {
    const hid_t create = Checked(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
    Check(H5Pset_obj_track_times(create, 0), "track times");
    return create;
  }
};

FileBuilder::FileBuilder(std::uint64_t userblock) : state_(std::make_unique<State>()) {
  const hid_t access = Checked(H5Pcreate(H5P_FILE_ACCESS), "fapl");
  Check(H5Pset_fapl_core(access, 65536, 0), "core driver");
  const hid_t create = Checked(H5Pcreate(H5P_FILE_CREATE), "fcpl");
  if (userblock > 0) Check(H5Pset_userblock(create, userblock), "user block");
  state_->file = Checked(H5Fcreate("test-image.h5", H5F_ACC_TRUNC, create, access), "file");
  H5Pclose(create);
  H5Pclose(access);
  state_->lcpl = Checked(H5Pcreate(H5P_LINK_CREATE), "lcpl");
  Check(H5Pset_create_intermediate_group(state_->lcpl, 1), "intermediate groups");
  state_->gcpl = Checked(H5Pcreate(H5P_GROUP_CREATE), "gcpl");
  Check(H5Pset_obj_track_times(state_->gcpl, 0), "track times");
}

FileBuilder::~FileBuilder() {
  if (state_->lcpl >= 0) H5Pclose(state_->lcpl);
  if (state_->gcpl >= 0) H5Pclose(state_->gcpl);
  if (state_->file >= 0) H5Fclose(state_->file);
}

FileBuilder& FileBuilder::Dataset(const std::string& path, const std::string& dtype,
                                  const std::vector<std::uint64_t>& shape) {
  const std::vector<hsize_t> dims(shape.begin(), shape.end());
  const hid_t space = Checked(
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
      "dataspace");
  const hid_t type = TypeOf(dtype);
  const hid_t create = State::Untimed();
  state_->Parents(path);
  const hid_t dataset =
      Checked(H5Dcreate2(state_->file, path.c_str(), type, space, state_->lcpl, create, H5P_DEFAULT), "dataset");
  H5Dclose(dataset);
  H5Pclose(create);
  H5Tclose(type);
  H5Sclose(space);
  return *this;
}

FileBuilder& FileBuilder::FilteredDataset(const std::string& path, unsigned filter) {
  const hsize_t dims = 4;
  const hid_t space = Checked(H5Screate_simple(1, &dims, nullptr), "dataspace");
  const hid_t create = State::Untimed();
  state_->Parents(path);
  Check(H5Pset_chunk(create, 1, &dims), "chunk");
  if (filter == H5Z_FILTER_DEFLATE) {
    Check(H5Pset_deflate(create, 4), "deflate");
  } else {
    Check(H5Pset_filter(create, static_cast<H5Z_filter_t>(filter), H5Z_FLAG_OPTIONAL, 0, nullptr), "plugin filter");
  }
  const hid_t dataset = Checked(
      H5Dcreate2(state_->file, path.c_str(), H5T_IEEE_F32LE, space, state_->lcpl, create, H5P_DEFAULT), "dataset");
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  return *this;
}

FileBuilder& FileBuilder::ExternalStorageDataset(const std::string& path, const std::string& file) {
  const hsize_t dims = 4;
  const hid_t space = Checked(H5Screate_simple(1, &dims, nullptr), "dataspace");
  const hid_t create = State::Untimed();
  state_->Parents(path);
  Check(H5Pset_external(create, file.c_str(), 0, 16), "external");
  const hid_t dataset = Checked(
      H5Dcreate2(state_->file, path.c_str(), H5T_IEEE_F32LE, space, state_->lcpl, create, H5P_DEFAULT), "dataset");
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  return *this;
}

FileBuilder& FileBuilder::VirtualDataset(const std::string& path, const std::string& file, const std::string& dataset) {
  const hsize_t dims = 4;
  const hid_t space = Checked(H5Screate_simple(1, &dims, nullptr), "dataspace");
  const hid_t create = State::Untimed();
  state_->Parents(path);
  Check(H5Pset_virtual(create, space, file.c_str(), dataset.c_str(), space), "virtual mapping");
  const hid_t created = Checked(
      H5Dcreate2(state_->file, path.c_str(), H5T_IEEE_F32LE, space, state_->lcpl, create, H5P_DEFAULT), "dataset");
  H5Dclose(created);
  H5Pclose(create);
  H5Sclose(space);
  return *this;
}

FileBuilder& FileBuilder::Group(const std::string& path) {
  state_->Parents(path);
  H5Gclose(Checked(H5Gcreate2(state_->file, path.c_str(), state_->lcpl, state_->gcpl, H5P_DEFAULT), "group"));
  return *this;
}

FileBuilder& FileBuilder::ExternalLink(const std::string& path, const std::string& file, const std::string& object) {
  Check(H5Lcreate_external(file.c_str(), object.c_str(), state_->file, path.c_str(), state_->lcpl, H5P_DEFAULT),
        "external link");
  return *this;
}

FileBuilder& FileBuilder::SoftLink(const std::string& path, const std::string& target) {
  Check(H5Lcreate_soft(target.c_str(), state_->file, path.c_str(), state_->lcpl, H5P_DEFAULT), "soft link");
  return *this;
}

FileBuilder& FileBuilder::Attribute(const std::string& name, const std::string& text, bool fixed) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (fixed) {
    Check(H5Tset_size(type, text.empty() ? 1 : text.size()), "string size");
  } else {
    Check(H5Tset_size(type, H5T_VARIABLE), "vlen string");
    Check(H5Tset_cset(type, H5T_CSET_UTF8), "utf-8");
  }
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute =
      Checked(H5Acreate2(state_->file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "attribute");
  if (fixed) {
    Check(H5Awrite(attribute, type, text.data()), "attribute value");
  } else {
    const char* value = text.c_str();
    Check(H5Awrite(attribute, type, static_cast<const void*>(&value)), "attribute value");
  }
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
  return *this;
}

FileBuilder& FileBuilder::IntegerAttribute(const std::string& name, std::int64_t value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute =
      Checked(H5Acreate2(state_->file, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), "attribute");
  Check(H5Awrite(attribute, H5T_NATIVE_INT64, &value), "attribute value");
  H5Aclose(attribute);
  H5Sclose(space);
  return *this;
}

std::string FileBuilder::Image() {
  Check(H5Fflush(state_->file, H5F_SCOPE_GLOBAL), "flush");
  const ssize_t size = H5Fget_file_image(state_->file, nullptr, 0);
  if (size <= 0) throw std::runtime_error("libhdf5 gave no file image");
  std::string image(static_cast<std::size_t>(size), '\0');
  if (H5Fget_file_image(state_->file, image.data(), image.size()) != size) throw std::runtime_error("file image");
  return image;
}

std::string KerasWeights() {
  return FileBuilder()
      .Dataset("layers/dense/vars/0", "F32", {3, 2})
      .Dataset("layers/dense/vars/1", "F32", {2})
      .Group("optimizer/vars")
      .Image();
}

std::string Keras2Model(const std::string& model_config) {
  return FileBuilder()
      .Attribute("model_config", model_config)
      .Attribute("keras_version", "2.13.1")
      .Attribute("backend", "tensorflow")
      .Dataset("model_weights/dense/dense/kernel:0", "F32", {3, 2})
      .Dataset("model_weights/dense/dense/bias:0", "F32", {2})
      .Image();
}

std::string KerasSequentialConfig(const std::string& extra_layers) {
  const std::string dtype =
      R"({"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null})";
  return R"({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential", "trainable": true, "dtype": )" +
         dtype +
         R"(, "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 3], "dtype": "float32", "sparse": false, "name": "input_layer"}, "registered_name": null}, {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": )" +
         dtype +
         R"(, "units": 2, "activation": "relu", "use_bias": true, "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}, "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null}, "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null}, "registered_name": null, "build_config": {"input_shape": [null, 3]}})" +
         (extra_layers.empty() ? std::string() : ", " + extra_layers) +
         R"(], "build_input_shape": [null, 3]}, "registered_name": null, "build_config": {"input_shape": [null, 3]}, "compile_config": {"optimizer": {"module": "keras.optimizers", "class_name": "Adam", "config": {"name": "adam", "learning_rate": 0.001}, "registered_name": null}, "loss": {"module": "keras.losses", "class_name": "function", "config": "mean_squared_error", "registered_name": "mean_squared_error"}, "metrics": null, "run_eagerly": false, "steps_per_execution": 1, "jit_compile": false}})";
}

std::string KerasArchive(const std::string& config, const std::vector<std::pair<std::string, std::string>>& extra,
                         bool stored, const std::string& metadata) {
  std::vector<std::pair<std::string, std::string>> members{
      {"metadata.json", metadata}, {"config.json", config}, {"model.weights.h5", KerasWeights()}};
  members.insert(members.end(), extra.begin(), extra.end());
  return ckpt::testing::pk::ZipOf(members, !stored);
}

}  // namespace h5b
