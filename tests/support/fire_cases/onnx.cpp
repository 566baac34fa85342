// Fire cases of the onnx rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddOnnxFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // ONNX models (formats.md section 7), written field by field.
  {
    using ox::Model, ox::Graph, ox::Node;
    const std::string w = ox::FloatInitializer("w", 2, std::string(8, '\0'));
    PickleCase(c, "onnx-budget-exceeded", "10^6 + 1 nodes", "model.onnx", [] {
      static const std::string many = [] {
        std::string nodes;
        for (int i = 0; i < 1'000'001; ++i) nodes += std::string("\x0a\x00", 2);
        return Model(Graph(nodes));
      }();
      return many;
    });
    PickleCase(c, "onnx-custom-domain", "com.example imported", "model.onnx",
               [w] { return Model(ox::Opset("", 17) + ox::Opset("com.example", 1) + Graph(w)); });
    PickleCase(c, "onnx-external-data-escape", "absolute location", "model.onnx",
               [] { return Model(Graph(ox::ExternalInitializer("w", 2, "/etc/passwd"))); });
    PickleCase(c, "onnx-external-data-unread", "data beside the model", "model.onnx",
               [] { return Model(Graph(ox::ExternalInitializer("w", 2, "weights.bin"))); });
    PickleCase(c, "onnx-invalid", "no graph", "model.onnx", [] { return Model(ox::Bytes(2, "exporter")); });
    PickleCase(c, "onnx-python-op", "ai.onnx.contrib PyOp", "model.onnx",
               [w] { return Model(ox::Opset("", 17) + Graph(w + Node("PyOp", "ai.onnx.contrib", "w", "y"))); });
    PickleCase(c, "onnx-tensor-invalid", "raw_data 4 bytes short", "model.onnx",
               [] { return Model(Graph(ox::FloatInitializer("w", 2, std::string(4, '\0')))); });
    PickleCase(c, "onnx-unknown-field", "field 99 after the graph", "model.onnx",
               [w] { return Model(Graph(w) + ox::Int(99, 1)); });
  }

  // ONNX external data inside a model folder (formats.md section 7): resolved against the folder.
  {
    const auto model = [] { return ox::Model(ox::Graph(ox::ExternalInitializer("w", 2, "weights.bin"))); };
    ModelCase(c, "onnx-external-data-missing", "weights.bin absent", [model] {
      return Files{{"model.onnx", model()}, {"README.md", "# a model\n"}};
    });
    ModelCase(c, "onnx-external-data-range", "weights.bin 4 bytes short", [model] {
      return Files{{"model.onnx", model()}, {"weights.bin", std::string(4, '\0')}};
    });
  }
}

}  // namespace ckpt::testing
