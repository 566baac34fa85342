// Near misses of the keras rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddKerasNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // Keras: the same archives with what Keras itself writes in place of the hostile object.
  {
    using h5b::KerasArchive, h5b::KerasSequentialConfig;
    const auto keras_near = [&n](std::string rule, std::string variant, const std::string& layer) {
      PickleNear(
          n, std::move(rule), std::move(variant), "model.keras",
          [layer] { return KerasArchive(KerasSequentialConfig(layer)); }, true);
    };
    keras_near("keras-module-unsafe", "every module in keras", "");
    keras_near(
        "keras-module-unsafe", "relu of builtins (a Keras activation found by name)",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "units": 1, "activation": {"module": "builtins", "class_name": "function", "config": "relu", "registered_name": "function"}}, "registered_name": null})");
    keras_near(
        "keras-function-unsafe", "gelu of keras.activations",
        R"({"module": "keras.layers", "class_name": "Activation", "config": {"name": "act", "activation": {"module": "keras.activations", "class_name": "function", "config": "gelu", "registered_name": "gelu"}}, "registered_name": null})");
    keras_near(
        "keras-lambda", "a Dense layer named lambda",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "lambda", "units": 1}, "registered_name": null})");
    keras_near(
        "keras-code-layer", "a Dense layer named TFSMLayer",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "TFSMLayer", "units": 1}, "registered_name": null})");
    keras_near(
        "keras-class-unknown", "Dense by its defining module",
        R"({"module": "keras.src.layers.core.dense", "class_name": "Dense", "config": {"name": "d2", "units": 1}, "registered_name": null})");
    PickleNear(
        n, "keras-custom-object", "Keras 2 model.h5 of Keras layers", "model.h5",
        [] {
          return h5b::Keras2Model(
              R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [{"class_name": "InputLayer", "config": {"batch_input_shape": [null, 3]}}, {"class_name": "Dense", "config": {"name": "dense", "units": 2, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}}}]}})");
        },
        true);
    PickleNear(
        n, "keras-config-invalid", "a Functional model, keys repeated only across objects", "model.keras",
        [] {
          return KerasArchive(
              R"({"module": "keras.src.models.functional", "class_name": "Functional", "config": {"name": "f", "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"name": "in"}, "registered_name": null}]}, "registered_name": "Functional"})");
        },
        true);
    PickleNear(
        n, "keras-metadata-invalid", "metadata.json with a field more", "model.keras",
        [] {
          return KerasArchive(KerasSequentialConfig(), {}, false,
                              R"({"keras_version": "3.6.0", "date_saved": "2024-10-01@12:00:00", "note": 1})");
        },
        true);
    PickleNear(
        n, "keras-member-unexpected", "an asset and stored members", "model.keras",
        [] {
          return KerasArchive(KerasSequentialConfig(), {{"assets/vocab.txt", "a\nb\n"}}, true);
        },
        true);
    keras_near(
        "keras-library-module", "a Dense layer named keras_hub",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "keras_hub", "units": 1}, "registered_name": null})");
  }
}

}  // namespace ckpt::testing
