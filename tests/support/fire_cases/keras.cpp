// Fire cases of the keras rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddKerasFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // Keras (formats.md section 5): .keras zips as saving_lib writes them, config.json walked.
  {
    using h5b::KerasArchive, h5b::KerasSequentialConfig;
    const auto keras_case = [&c](std::string rule, std::string variant, const std::string& layer) {
      PickleCase(c, std::move(rule), std::move(variant), "model.keras",
                 [layer] { return KerasArchive(KerasSequentialConfig(layer)); });
    };
    keras_case("keras-module-unsafe", "os.system as a function (CVE-2025-1550)",
               R"({"module": "os", "class_name": "function", "config": "system", "registered_name": "function"})");
    keras_case("keras-module-unsafe", "exec as a function of builtins",
               R"({"module": "builtins", "class_name": "function", "config": "exec", "registered_name": "function"})");
    keras_case(
        "keras-function-unsafe", "keras.utils.get_file (CVE-2025-8747)",
        R"({"module": "keras.utils", "class_name": "function", "config": "get_file", "registered_name": "get_file"})");
    keras_case(
        "keras-lambda", "Lambda layer with marshalled bytecode",
        R"({"module": "keras.layers", "class_name": "Lambda", "config": {"name": "lambda", "function": {"class_name": "__lambda__", "config": {"value": ["4wEAAAAAAAAA", null, null]}}}, "registered_name": null})");
    keras_case(
        "keras-code-layer", "TFSMLayer (CVE-2026-1462)",
        R"({"module": "keras.layers", "class_name": "TFSMLayer", "config": {"name": "tfsm", "filepath": "/tmp/saved_model", "call_endpoint": "serve"}, "registered_name": null})");
    keras_case(
        "keras-class-unknown", "an internal helper as a class",
        R"({"module": "keras.src.saving.saving_lib", "class_name": "H5IOStore", "config": {}, "registered_name": null})");
    PickleCase(c, "keras-custom-object", "Keras 2 model.h5 with an unknown layer", "model.h5", [] {
      return h5b::Keras2Model(
          R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [{"class_name": "MyLayer", "config": {"name": "mine"}}]}})");
    });
    PickleCase(c, "keras-config-invalid", "class_name given twice", "model.keras", [] {
      return KerasArchive(
          R"({"module": "keras", "class_name": "Sequential", "class_name": "Functional", "config": {}})");
    });
    PickleCase(c, "keras-metadata-invalid", "metadata.json not JSON", "model.keras",
               [] { return KerasArchive(KerasSequentialConfig(), {}, false, "keras_version=3.6.0"); });
    PickleCase(c, "keras-member-unexpected", "a pickle beside the model", "model.keras", [] {
      return KerasArchive(KerasSequentialConfig(), {{"payload.pkl", std::string("\x80\x04K\x01.", 5)}});
    });
    keras_case(
        "keras-library-module", "a keras_hub backbone",
        R"({"module": "keras_hub.src.models.gemma.gemma_backbone", "class_name": "GemmaBackbone", "config": {"name": "gemma"}, "registered_name": "keras_hub>GemmaBackbone"})");
  }
}

}  // namespace ckpt::testing
