// The kinds of input the tools recognise (inputs.md section 1), by content, never by name.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace ckpt {

enum class InputKind : std::uint8_t {
  kLensemble,     ///< a directory holding header.json
  kLensembleTar,  ///< an uncompressed tar of one
  kSafetensors,   ///< a plain safetensors file
  kModelFolder,   ///< any other directory: the Hugging Face layout
  kGguf,
  kTorchZip,
  kTorchLegacy,
  kPickle,
  kNumpy,
  kCompressed,  ///< gzip, bzip2, xz or zstd: refused until decompressed
  kUnknown,
};

/// The JSON `kind`: "lensemble", "lensemble-tar", "safetensors", "model-folder", ...
std::string_view InputKindName(InputKind kind);
/// The kind a JSON `kind` name stands for (--expect-kind); nullopt for any other name.
std::optional<InputKind> InputKindFromName(std::string_view name);

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
    return {InputKind::kLensemble, InputKind::kLensembleTar, InputKind::kSafetensors, InputKind::kModelFolder,
            InputKind::kGguf,      InputKind::kTorchZip,     InputKind::kTorchLegacy, InputKind::kPickle,
            InputKind::kNumpy,     InputKind::kCompressed,   InputKind::kUnknown};
  }

 private:
  static constexpr std::uint32_t Bit(InputKind k) { return 1U << static_cast<unsigned>(k); }
  std::uint32_t bits_ = 0;
};

}  // namespace ckpt
