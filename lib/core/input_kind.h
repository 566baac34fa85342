// The kinds of input the tools recognise (inputs.md section 1), by content, never by name.
// CKPT_INPUT_KINDS is the format table's list: one line a kind, with its JSON `kind` name;
// each kind's entry (what recognises it, how it is opened, laid out and read) is
// ckpt::formats::k<Name>Format, defined by its module under lib/formats/ and gathered by
// lib/formats/format_table.cpp. Adding a format is one line here and one module.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace ckpt {

// X(Name, "json-name"), in the order recognition tries them (directories are told apart
// by their entries, the rest by content: inputs.md section 1).
// clang-format off
#define CKPT_INPUT_KINDS(X)         \
  X(Lensemble, "lensemble")         \
  X(ModelFolder, "model-folder")    \
  X(Nemo, "nemo")                   \
  X(LensembleTar, "lensemble-tar")  \
  X(Joblib, "joblib")               \
  X(Compressed, "compressed")       \
  X(Safetensors, "safetensors")     \
  X(Gguf, "gguf")                   \
  X(Hdf5, "hdf5")                   \
  X(Npz, "npz")                     \
  X(Keras, "keras")                 \
  X(Torchscript, "torchscript")     \
  X(TorchExport, "torch-export")    \
  X(TorchZip, "torch-zip")          \
  X(TorchLegacy, "torch-legacy")    \
  X(Numpy, "numpy")                 \
  X(Pickle, "pickle")               \
  X(Msgpack, "msgpack")             \
  X(Onnx, "onnx")                   \
  X(Unknown, "unknown")
// clang-format on

enum class InputKind : std::uint8_t {
#define CKPT_INPUT_KIND_ENUM(Name, json) k##Name,
  CKPT_INPUT_KINDS(CKPT_INPUT_KIND_ENUM)
#undef CKPT_INPUT_KIND_ENUM
};

/// The kind of the one accepted weight format: what a Lensemble artifact's weights and
/// ckpt-convert's output are.
inline constexpr InputKind kAcceptedWeightsKind = InputKind::kSafetensors;

/// Every kind, in the table's order.
inline constexpr std::array kAllInputKinds = {
#define CKPT_INPUT_KIND_VALUE(Name, json) InputKind::k##Name,
    CKPT_INPUT_KINDS(CKPT_INPUT_KIND_VALUE)
#undef CKPT_INPUT_KIND_VALUE
};

/// The JSON `kind`: "lensemble", "lensemble-tar", "safetensors", "model-folder", ...
std::string_view InputKindName(InputKind kind);
/// The kind a JSON `kind` name stands for (--expect-kind); nullopt for any other name.
std::optional<InputKind> InputKindFromName(std::string_view name);
/// "; did you mean 'safetensors'?" for a name close to a kind's, else "".
std::string InputKindSuggestion(std::string_view name);

/// A set of input kinds (which inputs a rule applies to).
class InputKinds {
 public:
  constexpr InputKinds(std::initializer_list<InputKind> kinds) {
    for (InputKind k : kinds) bits_ |= Bit(k);
  }
  [[nodiscard]] constexpr bool Has(InputKind kind) const { return (bits_ & Bit(kind)) != 0; }
  /// A Lensemble artifact, as a directory or a tar.
  static constexpr InputKinds Lensemble() { return {InputKind::kLensemble, InputKind::kLensembleTar}; }
  /// Every input whose weights are safetensors files.
  static constexpr InputKinds Safetensors() {
    return {InputKind::kLensemble, InputKind::kLensembleTar, InputKind::kSafetensors, InputKind::kModelFolder};
  }
  static constexpr InputKinds All() {
    InputKinds all{};
    for (InputKind k : kAllInputKinds) all.bits_ |= Bit(k);
    return all;
  }

 private:
  static_assert(kAllInputKinds.size() <= 64, "InputKinds holds 64 kinds");
  static constexpr std::uint64_t Bit(InputKind k) { return std::uint64_t{1} << static_cast<unsigned>(k); }
  std::uint64_t bits_ = 0;
};

}  // namespace ckpt
