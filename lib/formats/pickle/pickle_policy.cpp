#include "lib/formats/pickle/pickle_policy.h"

#include <array>
#include <span>

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

namespace ckpt::pickle {
namespace {

struct ClassName {
  std::string_view module;
  std::string_view name;
};

// scikit-learn 1.2.1's estimators, sorted by (module, name).
constexpr ClassName kSklearnEstimators[] = {
#include "lib/formats/pickle/sklearn_estimators.inc"
};

// Classes scikit-learn's own estimators pickle inside them (formats.md section 13): the
// Cython tree and its neighbours' trees, the loss objects of SGD and histogram boosting, and
// histogram boosting's binning and predictors. Each is reduced with plain data and numpy
// arrays and given a dict state.
constexpr ClassName kSklearnInternals[] = {
    {"sklearn.tree._tree", "Tree"},
    {"sklearn.neighbors._kd_tree", "KDTree"},
    {"sklearn.neighbors._ball_tree", "BallTree"},
    {"sklearn.linear_model._sgd_fast", "Hinge"},
    {"sklearn.linear_model._sgd_fast", "SquaredHinge"},
    {"sklearn.linear_model._sgd_fast", "Log"},
    {"sklearn.linear_model._sgd_fast", "ModifiedHuber"},
    {"sklearn.linear_model._sgd_fast", "SquaredLoss"},
    {"sklearn.linear_model._sgd_fast", "Huber"},
    {"sklearn.linear_model._sgd_fast", "EpsilonInsensitive"},
    {"sklearn.linear_model._sgd_fast", "SquaredEpsilonInsensitive"},
    {"sklearn.ensemble._hist_gradient_boosting.binning", "_BinMapper"},
    {"sklearn.ensemble._hist_gradient_boosting.predictor", "TreePredictor"},
    {"sklearn._loss.loss", "HalfSquaredError"},
    {"sklearn._loss.loss", "AbsoluteError"},
    {"sklearn._loss.loss", "PinballLoss"},
    {"sklearn._loss.loss", "HalfPoissonLoss"},
    {"sklearn._loss.loss", "HalfGammaLoss"},
    {"sklearn._loss.loss", "HalfTweedieLoss"},
    {"sklearn._loss.loss", "HalfTweedieLossIdentity"},
    {"sklearn._loss.loss", "HalfBinomialLoss"},
    {"sklearn._loss.loss", "HalfMultinomialLoss"},
    {"sklearn._loss.link", "IdentityLink"},
    {"sklearn._loss.link", "LogLink"},
    {"sklearn._loss.link", "LogitLink"},
    {"sklearn._loss.link", "MultinomialLogit"},
    {"sklearn._loss.link", "Interval"},
};

bool Listed(std::span<const ClassName> table, std::string_view module, std::string_view name) {
  for (const ClassName& c : table) {
    if (c.module == module && c.name == name) return true;
  }
  return false;
}

class JoblibPolicy final : public FindClassPolicy {
 public:
  JoblibPolicy(bool inline_arrays, bool estimators) : inline_arrays_(inline_arrays), estimators_(estimators) {}
  [[nodiscard]] Known Classify(std::string_view module, std::string_view name) const override {
    if (module == "joblib.numpy_pickle" && name == "NumpyArrayWrapper") return Known::kJoblibArrayWrapper;
    if (module == "numpy" && (name == "ndarray" || name == "memmap")) return Known::kNumpyArrayType;
    if (module == "numpy" && name == "dtype") return Known::kNumpyDtype;
    if (module == "numpy.core.multiarray" || module == "numpy._core.multiarray") {
      if (name == "_reconstruct") return Known::kNumpyReconstruct;
      if (name == "scalar") return Known::kNumpyScalar;
    }
    if (module == "copyreg" && name == "_reconstructor") return Known::kCopyregReconstructor;
    if (module == "builtins" && name == "object") return Known::kBuiltinsObject;
    if (estimators_ && IsSklearnEstimator(module, name)) return Known::kEstimator;
    if (estimators_ && Listed(kSklearnInternals, module, name)) return Known::kEstimatorInternal;
    return TorchFindClass().Classify(module, name);
  }
  [[nodiscard]] bool IsNestedLoader(std::string_view module, std::string_view name) const override {
    return TorchFindClass().IsNestedLoader(module, name);
  }
  [[nodiscard]] std::string_view NotAdmittedWhy() const override {
    return estimators_ ? "outside joblib's arrays, scikit-learn's estimator table and what torch.save writes"
                       : "outside what numpy writes for an array and what torch.save writes";
  }
  [[nodiscard]] bool InlineArrays() const override { return inline_arrays_; }

 private:
  bool inline_arrays_;
  bool estimators_;
};

}  // namespace

bool IsSklearnEstimator(std::string_view module, std::string_view name) {
  return Listed(kSklearnEstimators, module, name);
}

const FindClassPolicy& JoblibFindClass(bool inline_arrays) {
  static const JoblibPolicy joblib(true, true);
  static const JoblibPolicy nested(false, true);
  return inline_arrays ? joblib : nested;
}

const FindClassPolicy& NumpyFindClass() {
  static const JoblibPolicy numpy(false, false);
  return numpy;
}

}  // namespace ckpt::pickle
