// The Keras config analyser (formats.md sections 5 and 6): one walk for a `.keras` zip's
// config.json and an HDF5 file's `model_config` / `training_config` attributes. The text is
// parsed strictly (100,000,000 bytes, nesting 127, no duplicate keys) and walked without
// recursion; every object with a `class_name` is a serialized Keras object, judged by what
// Keras' deserializer (keras/src/saving/serialization_lib.py) would import or call for it:
// modules outside Keras, functions other than the built-in activations, losses and metrics,
// Lambda layers and marshalled lambdas, layers that load outside code, names that are not in
// the pinned Keras 3 public API (keras_api_table.inc) and custom registered objects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt::keras {

inline constexpr std::uint64_t kMaxConfigBytes = 100'000'000;

/// What a Keras file records for reports: an HDF5 file's root keras_version attribute, or a
/// .keras archive's metadata.json keras_version.
struct KerasFacts final : FormatFacts {
  std::string keras_version;
  void Describe(boost::json::object& fields) const override {
    if (!keras_version.empty()) fields["keras_version"] = keras_version;
  }
};

/// Which writer's conventions apply: a Keras 3 `.keras` config names each object's module; a
/// Keras 2 HDF5 config does not, so an unknown class there is a custom object, not unknown.
enum class ConfigDialect : std::uint8_t { kKerasZip, kHdf5 };

/// Where a config is, for the findings' locations and messages.
struct ConfigSite {
  std::string described;     ///< "config.json", "the model_config attribute"
  std::uint64_t offset = 0;  ///< where findings point: the text's first byte when `located`
  bool located = false;      ///< the text is stored as is at `offset`: a token's offset is added
};

/// Parses and walks `text`, reporting the keras-* rules through `report`. False when the text
/// is not a strict JSON object (keras-config-invalid is reported).
bool AnalyseConfig(std::string text, const ConfigSite& site, ConfigDialect dialect, const FileReporter& report);

/// Reads a `.keras` metadata.json (keras-metadata-invalid when it is not a strict JSON object);
/// its keras_version when it is a string.
std::optional<std::string> ReadMetadata(std::string text, const ConfigSite& site, const FileReporter& report);

}  // namespace ckpt::keras
