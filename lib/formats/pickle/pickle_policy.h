// find_class for the loader a pickle is read for: which globals it admits (each modelled by
// the analysing machine's call models, as the loader's own rebuild functions would run), and
// which calls unpickle further bytes (nested loaders). The machine asks its policy and never
// names a module itself, so a second loader (joblib, NumPy object arrays) is a second policy.
// TorchPolicy is torch.save's and the weights-only unpickler's.
#pragma once

#include <cstdint>
#include <string_view>

namespace ckpt::pickle {

/// What an admitted global is, for the machine's call models.
enum class Known : std::uint8_t {
  kNotAllowed,
  kOrderedDict,
  kRebuildTensor,
  kRebuildTensorV2,
  kRebuildTensorV3,
  kRebuildParameter,
  kRebuildParameterWithState,
  kRebuildMeta,
  kRebuildFromTypeV2,
  kTensorType,     // torch.Tensor, as _rebuild_from_type_v2's type
  kParameterType,  // torch.nn.parameter.Parameter
  kSize,
  kDevice,
  kCodecsEncode,
  kSet,
  kFrozenSet,
  kByteArray,
  kComplex,
  kStorageType,
  kDtype,
  kUnmodelledRebuild,  // allowlisted by torch, not modelled here: fails closed
  // joblib's array set and scikit-learn's estimators (formats.md section 3).
  kJoblibArrayWrapper,    // joblib.numpy_pickle.NumpyArrayWrapper: NEWOBJ, BUILD, then the array's bytes
  kNumpyArrayType,        // numpy.ndarray, numpy.memmap: a wrapper's subclass, _reconstruct's type
  kNumpyDtype,            // numpy.dtype(descr, align, copy), then BUILD with its state tuple
  kNumpyReconstruct,      // numpy.core.multiarray._reconstruct(ndarray, (0,), b'b'), then BUILD
  kNumpyScalar,           // numpy.core.multiarray.scalar(dtype, bytes)
  kCopyregReconstructor,  // copyreg._reconstructor(cls, builtins.object, None): object.__new__(cls)
  kBuiltinsObject,        // builtins.object, as _reconstructor's base
  kEstimator,             // a scikit-learn estimator class of the pinned table
  kEstimatorInternal,     // a class scikit-learn's estimators pickle inside them (sklearn.tree._tree.Tree)
};

struct StorageType {
  std::string_view name;
  std::string_view torch_dtype;
  std::string_view token;  ///< empty: no safetensors token
  std::uint64_t element_size;
};
struct TorchDtype {
  std::string_view name;
  std::string_view token;  ///< empty: no safetensors token
  std::uint64_t element_size;
};
/// torch's storage classes (torch.FloatStorage, ...) and dtypes (torch.float32, ...) by name.
const StorageType* FindStorageType(std::string_view name);
const TorchDtype* FindTorchDtype(std::string_view name);

class FindClassPolicy {
 public:
  FindClassPolicy() = default;
  FindClassPolicy(const FindClassPolicy&) = delete;
  FindClassPolicy& operator=(const FindClassPolicy&) = delete;
  virtual ~FindClassPolicy() = default;
  /// What `module.name` is to this loader; Known::kNotAllowed: importing it is unsafe.
  [[nodiscard]] virtual Known Classify(std::string_view module, std::string_view name) const = 0;
  /// Whether calling `module.name` unpickles further bytes.
  [[nodiscard]] virtual bool IsNestedLoader(std::string_view module, std::string_view name) const = 0;
  /// Why a global it does not admit is unsafe (the finding says it in parentheses).
  [[nodiscard]] virtual std::string_view NotAdmittedWhy() const = 0;
  /// Whether a NumpyArrayWrapper's BUILD is followed by the array's bytes (joblib's own
  /// unpickler; a pickle nested in an object array is read by Python's and has none).
  [[nodiscard]] virtual bool InlineArrays() const { return false; }
};

class TorchPolicy final : public FindClassPolicy {
 public:
  [[nodiscard]] Known Classify(std::string_view module, std::string_view name) const override;
  [[nodiscard]] bool IsNestedLoader(std::string_view module, std::string_view name) const override;
  [[nodiscard]] std::string_view NotAdmittedWhy() const override {
    return "outside what torch.save writes and the weights-only unpickler accepts";
  }
};

/// The one TorchPolicy.
const FindClassPolicy& TorchFindClass();

/// joblib.load's: the torch allowlist plus joblib's array set and scikit-learn's estimators.
/// `inline_arrays`: joblib's unpickler (a wrapper's bytes follow it), or Python's reading an
/// object array's nested pickle.
const FindClassPolicy& JoblibFindClass(bool inline_arrays = true);

/// numpy.load(allow_pickle=True)'s for an object array's pickle: numpy's array set
/// (_reconstruct, dtype, scalar) and plain data, no estimators.
const FindClassPolicy& NumpyFindClass();

/// Whether `module.name` is a class of the pinned scikit-learn estimator table
/// (lib/formats/pickle/sklearn_estimators.inc, scripts/make-sklearn-estimators).
bool IsSklearnEstimator(std::string_view module, std::string_view name);

}  // namespace ckpt::pickle
