// Fire cases of the safetensors rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddSafetensorsFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // safetensors structure
  Add(c, "safetensors-header-too-small", CI, "4 bytes", [] {
    Files f = Clean();
    f["weights.safetensors"] = "abcd";
    return f;
  });
  Add(c, "safetensors-header-too-small", CI, "N = 1", [] { return CleanWithWeights("{", ""); });
  Add(c, "safetensors-header-too-large", CI, "2^63", [] {
    Files f = Clean();
    f["weights.safetensors"] = std::string("\0\0\0\0\0\0\0\x80{}", 10);
    return f;
  });
  Add(c, "safetensors-header-past-end", CI, "N = 100", [] {
    Files f = Clean();
    f["weights.safetensors"] = std::string("\x64\0\0\0\0\0\0\0{\"a\":1}", 15);
    return f;
  });
  Add(c, "safetensors-header-not-utf8", CI, "0xff key", [] { return CleanWithWeights("{\"\xff\":1}", ""); });
  Add(c, "safetensors-header-json", CI, "syntax", [] { return CleanWithWeights("{\"a\":}", ""); });
  Add(c, "safetensors-header-json", CI, "array", [] { return CleanWithWeights("[]", ""); });
  Add(c, "safetensors-header-too-deep", CI, "128 levels",
      [] { return CleanWithWeights(std::string(128, '[') + std::string(128, ']'), ""); });
  Add(c, "safetensors-metadata-invalid", CI, "null", [] { return CleanWithWeights("{\"__metadata__\":null}", ""); });
  Add(c, "safetensors-metadata-invalid", CI, "number value",
      [] { return CleanWithWeights("{\"__metadata__\":{\"a\":1}}", ""); });
  Add(c, "safetensors-metadata-duplicate-key", CI, "a twice",
      [] { return CleanWithWeights("{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}}", ""); });
  Add(c, "safetensors-duplicate-tensor", CI, "identical twice",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + "},\"x\":{" + kF32One + "}}", std::string(4, '\0')); });
  Add(c, "safetensors-duplicate-tensor", CI, "escaped spelling",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + "},\"\\u0078\":{" + kF32One + "}}", std::string(4, '\0')); });
  Add(c, "safetensors-tensor-entry-invalid", CI, "unknown key",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + ",\"extra\":1}}", std::string(4, '\0')); });
  Add(c, "safetensors-tensor-entry-invalid", CI, "float offset", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}})", std::string(4, '\0'));
  });
  Add(c, "safetensors-tensor-entry-invalid", CI, "negative dim", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  Add(c, "safetensors-tensor-name-invalid", CI, "empty",
      [] { return CleanWithWeights("{\"\":{" + kF32One + "}}", std::string(4, '\0')); });
  Add(c, "safetensors-tensor-name-invalid", CI, "newline",
      [] { return CleanWithWeights("{\"a\\nb\":{" + kF32One + "}}", std::string(4, '\0')); });
  Add(c, "safetensors-tensor-name-invalid", CI, "__metadata__ tensor",
      [] { return CleanWithWeights("{\"__metadata__\":{" + kF32One + "}}", std::string(4, '\0')); });
  Add(c, "safetensors-dtype-unknown", CI, "F128", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})", std::string(16, '\0'));
  });
  Add(c, "safetensors-dtype-not-allowed", CI, "I32", [] {
    return CleanWithWeights(R"({"x":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  Add(c, "safetensors-size-overflow", CI, "2^40 x 2^40", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,4]}})",
                            std::string(4, '\0'));
  });
  Add(c, "safetensors-size-overflow", CI, "bits overflow", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,4]}})",
                            std::string(4, '\0'));
  });
  Add(c, "safetensors-size-misaligned", CI, "F4 x 3", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}})", std::string(1, '\0'));
  });
  Add(c, "safetensors-size-mismatch", CI, "4 bytes for 2 floats", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  Add(c, "safetensors-size-mismatch", CI, "end before begin", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", std::string(4, '\0'));
  });
  Add(c, "safetensors-offsets-not-contiguous", CI, "hole", [] {
    return CleanWithWeights(
        R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"y":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
        std::string(12, '\0'));
  });
  Add(c, "safetensors-offsets-not-contiguous", CI, "overlap", [] {
    return CleanWithWeights(
        R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
        std::string(8, '\0'));
  });
  Add(c, "safetensors-offsets-not-contiguous", CI, "first not at 0", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0'));
  });
  Add(c, "safetensors-buffer-size", CI, "trailing bytes", [] {
    Files f = Clean();
    f["weights.safetensors"] += "junk";
    return f;
  });
  Add(c, "safetensors-buffer-size", CI, "truncated", [] {
    Files f = Clean();
    f["weights.safetensors"].pop_back();
    return f;
  });
  Add(c, "safetensors-noncanonical-whitespace", CI, "leading newline", [] {
    Files f = Clean();
    auto parts = SplitSafetensors(f["weights.safetensors"]);
    f["weights.safetensors"] = SafetensorsFile("\n" + parts.header, parts.data);
    return f;
  });
  Add(c, "safetensors-noncanonical-whitespace", CI, "tab padding", [] {
    Files f = Clean();
    auto parts = SplitSafetensors(f["weights.safetensors"]);
    f["weights.safetensors"] = SafetensorsFile(parts.header + "\t", parts.data);
    return f;
  });
}

}  // namespace ckpt::testing
