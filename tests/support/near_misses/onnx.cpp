// Near misses of the onnx rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddOnnxNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // ONNX: a thousand nodes, ONNX's own ML domain, a tensor of its own data, a model with a
  // graph, PyOp in the default domain, exact raw_data, a known field after the graph.
  {
    using ox::Model, ox::Graph, ox::Node;
    const std::string w = ox::FloatInitializer("w", 2, std::string(8, '\0'));
    PickleNear(
        n, "onnx-budget-exceeded", "a thousand nodes", "model.onnx",
        [] {
          std::string nodes;
          for (int i = 0; i < 1000; ++i) nodes += std::string("\x0a\x00", 2);
          return Model(Graph(nodes));
        },
        true);
    PickleNear(
        n, "onnx-custom-domain", "ai.onnx.ml imported", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + ox::Opset("ai.onnx.ml", 3) + Graph(w)); }, true);
    PickleNear(
        n, "onnx-external-data-escape", "a location inside the folder", "model.onnx",
        [] { return Model(Graph(ox::ExternalInitializer("w", 2, "data/weights.bin"))); }, false);
    PickleNear(
        n, "onnx-external-data-unread", "raw_data in the file", "model.onnx", [w] { return Model(Graph(w)); }, true);
    PickleNear(
        n, "onnx-invalid", "a graph whose node reads an initializer", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + Graph(w + Node("Relu", "", "w", "y"))); }, true);
    PickleNear(
        n, "onnx-python-op", "PyOp in no custom domain", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + Graph(w + Node("PyOp", "", "w", "y"))); }, true);
    PickleNear(
        n, "onnx-tensor-invalid", "exact raw_data", "model.onnx", [w] { return Model(Graph(w)); }, true);
    PickleNear(
        n, "onnx-unknown-field", "doc_string after the graph", "model.onnx",
        [w] { return Model(Graph(w) + ox::Bytes(6, "a doc")); }, true);
  }

  // ONNX external data present and sized in the folder.
  {
    const auto folder_near = [&n](std::string rule, std::string variant, const std::string& location,
                                  const std::string& path) {
      NearMiss m{std::move(rule), std::move(variant),
                 [location, path] {
                   return Files{{"model.onnx", ox::Model(ox::Graph(ox::ExternalInitializer("w", 2, location)))},
                                {path, std::string(8, '\0')}};
                 },
                 true};
      m.form = InputForm::kFolder;
      m.input_name = "model";
      n.push_back(std::move(m));
    };
    folder_near("onnx-external-data-missing", "weights.bin beside the model", "weights.bin", "weights.bin");
    folder_near("onnx-external-data-range", "./data/weights.bin of 8 bytes", "./data/weights.bin", "data/weights.bin");
  }
}

}  // namespace ckpt::testing
