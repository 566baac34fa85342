#include "lib/formats/pickle/pickle_policy.h"

#include <array>

namespace ckpt::pickle {
namespace {

constexpr std::array<StorageType, 17> kStorageTypes{{
    {"FloatStorage", "float32", "F32", 4},
    {"DoubleStorage", "float64", "F64", 8},
    {"HalfStorage", "float16", "F16", 2},
    {"BFloat16Storage", "bfloat16", "BF16", 2},
    {"LongStorage", "int64", "I64", 8},
    {"IntStorage", "int32", "I32", 4},
    {"ShortStorage", "int16", "I16", 2},
    {"CharStorage", "int8", "I8", 1},
    {"ByteStorage", "uint8", "U8", 1},
    {"BoolStorage", "bool", "BOOL", 1},
    {"ComplexFloatStorage", "complex64", "C64", 8},
    {"ComplexDoubleStorage", "complex128", "", 16},
    {"QInt8Storage", "qint8", "", 1},
    {"QUInt8Storage", "quint8", "", 1},
    {"QInt32Storage", "qint32", "", 4},
    {"QUInt4x2Storage", "quint4x2", "", 1},
    {"UntypedStorage", "uint8", "U8", 1},
}};

constexpr std::array<TorchDtype, 32> kTorchDtypes{{
    {"float32", "F32", 4},
    {"float", "F32", 4},
    {"float64", "F64", 8},
    {"double", "F64", 8},
    {"float16", "F16", 2},
    {"half", "F16", 2},
    {"bfloat16", "BF16", 2},
    {"int64", "I64", 8},
    {"long", "I64", 8},
    {"int32", "I32", 4},
    {"int", "I32", 4},
    {"int16", "I16", 2},
    {"short", "I16", 2},
    {"int8", "I8", 1},
    {"uint8", "U8", 1},
    {"bool", "BOOL", 1},
    {"complex64", "C64", 8},
    {"cfloat", "C64", 8},
    {"complex128", "", 16},
    {"cdouble", "", 16},
    {"float8_e4m3fn", "F8_E4M3", 1},
    {"float8_e5m2", "F8_E5M2", 1},
    {"float8_e4m3fnuz", "F8_E4M3FNUZ", 1},
    {"float8_e5m2fnuz", "F8_E5M2FNUZ", 1},
    {"float8_e8m0fnu", "F8_E8M0", 1},
    {"uint16", "U16", 2},
    {"uint32", "U32", 4},
    {"uint64", "U64", 8},
    {"qint8", "", 1},
    {"quint8", "", 1},
    {"qint32", "", 4},
    {"complex32", "", 4},
}};

}  // namespace

const StorageType* FindStorageType(std::string_view name) {
  for (const StorageType& s : kStorageTypes) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const TorchDtype* FindTorchDtype(std::string_view name) {
  for (const TorchDtype& d : kTorchDtypes) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

Known TorchPolicy::Classify(std::string_view module, std::string_view name) const {
  if (module == "collections" && name == "OrderedDict") return Known::kOrderedDict;
  if (module == "torch._utils") {
    if (name == "_rebuild_tensor") return Known::kRebuildTensor;
    if (name == "_rebuild_tensor_v2") return Known::kRebuildTensorV2;
    if (name == "_rebuild_tensor_v3") return Known::kRebuildTensorV3;
    if (name == "_rebuild_parameter") return Known::kRebuildParameter;
    if (name == "_rebuild_parameter_with_state") return Known::kRebuildParameterWithState;
    if (name == "_rebuild_meta_tensor_no_storage") return Known::kRebuildMeta;
    for (std::string_view other : {"_rebuild_qtensor", "_rebuild_sparse_tensor", "_rebuild_sparse_csr_tensor",
                                   "_rebuild_nested_tensor", "_rebuild_device_tensor_from_numpy", "_rebuild_xla_tensor",
                                   "_rebuild_mlc_tensor", "_rebuild_wrapper_subclass", "_rebuild_tensor_v3_device"}) {
      if (name == other) return Known::kUnmodelledRebuild;
    }
    return Known::kNotAllowed;
  }
  if ((module == "torch._tensor" || module == "torch.tensor") && name == "_rebuild_from_type_v2") {
    return Known::kRebuildFromTypeV2;
  }
  if (module == "torch._tensor" && name == "_rebuild_from_type") return Known::kUnmodelledRebuild;
  if (module == "torch.serialization" && name == "_get_layout") return Known::kUnmodelledRebuild;
  if (module == "torch") {
    if (name == "Tensor") return Known::kTensorType;
    if (name == "Size") return Known::kSize;
    if (name == "device") return Known::kDevice;
    if (name.ends_with("Storage") && FindStorageType(name) != nullptr) return Known::kStorageType;
    if (FindTorchDtype(name) != nullptr) return Known::kDtype;
    return Known::kNotAllowed;
  }
  if (module == "torch.nn.parameter" && name == "Parameter") return Known::kParameterType;
  if (module == "_codecs" && name == "encode") return Known::kCodecsEncode;
  if (module == "builtins") {
    if (name == "set") return Known::kSet;
    if (name == "frozenset") return Known::kFrozenSet;
    if (name == "bytearray") return Known::kByteArray;
    if (name == "complex") return Known::kComplex;
  }
  return Known::kNotAllowed;
}

// Names whose call unpickles further bytes: the payload is in the argument.
bool TorchPolicy::IsNestedLoader(std::string_view module, std::string_view name) const {
  struct Loader {
    std::string_view module, name;
  };
  static constexpr Loader kLoaders[] = {
      {"pickle", "loads"},
      {"pickle", "load"},
      {"pickle", "_loads"},
      {"pickle", "_load"},
      {"pickle", "Unpickler"},
      {"pickle", "_Unpickler"},
      {"_pickle", "loads"},
      {"_pickle", "load"},
      {"_pickle", "Unpickler"},
      {"torch", "load"},
      {"torch.serialization", "load"},
      {"torch.serialization", "_load"},
      {"torch.serialization", "_legacy_load"},
      {"torch.storage", "_load_from_bytes"},
      {"torch.jit", "load"},
      {"torch.jit._serialization", "load"},
      {"torch._weights_only_unpickler", "load"},
      {"numpy", "load"},
      {"numpy.lib.npyio", "load"},
      {"numpy.lib._npyio_impl", "load"},
      {"dill", "loads"},
      {"dill", "load"},
      {"cloudpickle", "loads"},
      {"cloudpickle", "load"},
      {"joblib", "load"},
      {"joblib.numpy_pickle", "load"},
      {"pandas", "read_pickle"},
      {"pandas.io.pickle", "read_pickle"},
      {"shelve", "open"},
      {"jsonpickle", "decode"},
  };
  for (const Loader& l : kLoaders) {
    if (l.module == module && l.name == name) return true;
  }
  return false;
}

const FindClassPolicy& TorchFindClass() {
  static const TorchPolicy policy;
  return policy;
}

}  // namespace ckpt::pickle
