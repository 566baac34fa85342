// Near misses of the safetensors rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddSafetensorsNearMisses(std::vector<NearMiss>& n) {
  // safetensors
  Add(n, "safetensors-buffer-size", "an empty tensor at the end of the buffer", Clean);
  Add(n, "safetensors-dtype-not-allowed", "F32, BF16 and F16", Clean);
  Add(n, "safetensors-dtype-unknown", "known dtypes", Clean);
  Add(n, "safetensors-duplicate-tensor", "names that differ only in case", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.A", "encoder", "float32", {1}, ""});
      s.tensors.push_back({"encoder.a", "encoder", "float32", {1}, ""});
    });
  });
  Add(n, "safetensors-header-json", "escaped names in the header",
      [] { return CleanWeightsHeader([](std::string& h) { h.replace(h.find("n\xC3\xA9t"), 4, "n\\u00e9t"); }); });
  Add(n, "safetensors-header-not-utf8", "non-ASCII names", Clean);
  Add(n, "safetensors-header-past-end", "the header ends exactly at the end of the file", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.e", "encoder", "float32", {0}, ""}}; });
  });
  Add(n, "safetensors-header-too-deep", "the usual three levels", Clean);
  Add(n, "safetensors-header-too-large", "a megabyte of canonical padding",
      [] { return CleanWeightsHeader([](std::string& h) { h.append(1'000'000, ' '); }); });
  Add(
      n, "safetensors-header-too-small", "the smallest header, {}",
      [] {
        Files f = Clean();
        f["weights.safetensors"] = LengthPrefix(2) + "{}";
        return f;
      },
      false);
  Add(n, "safetensors-metadata-duplicate-key", "keys that differ only in case", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata = {{"Format", "pt"}, {"format", "pt"}}; });
  });
  Add(n, "safetensors-metadata-invalid", "an empty metadata map",
      [] { return FromSpec([](ArtifactSpec& s) { s.metadata.clear(); }); });
  Add(n, "safetensors-noncanonical-whitespace", "trailing spaces only",
      [] { return CleanWeightsHeader([](std::string& h) { h.append(7, ' '); }); });
  Add(n, "safetensors-offsets-not-contiguous", "data in another order than the names", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    std::vector<const TensorSpec*> reversed;
    for (auto it = spec.tensors.rbegin(); it != spec.tensors.rend(); ++it) reversed.push_back(&*it);
    f["weights.safetensors"] = SafetensorsFor(reversed, spec.metadata);
    return f;
  });
  Add(
      n, "safetensors-size-misaligned", "F4 with a whole number of bytes",
      [] {
        return CleanWithRawWeights(R"({"encoder.q":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})",
                                   std::string(1, '\0'));
      },
      false);
  Add(n, "safetensors-size-mismatch", "sizes that match", Clean);
  Add(
      n, "safetensors-size-overflow", "2^58 F32 elements: 2^63 bits",
      [] {
        return CleanWithRawWeights(
            R"({"encoder.big":{"dtype":"F32","shape":[288230376151711744],"data_offsets":[0,1152921504606846976]}})",
            "");
      },
      false);
  Add(n, "safetensors-tensor-entry-invalid", "entry keys in another order", [] {
    return CleanWeightsHeader([](std::string& h) {
      boost::json::object header = boost::json::parse(h).as_object();
      boost::json::object out;
      for (auto& [key, value] : header) {
        if (key == "__metadata__") {
          out[key] = value;
          continue;
        }
        boost::json::object& e = value.as_object();
        out[key] =
            boost::json::object{{"data_offsets", e["data_offsets"]}, {"shape", e["shape"]}, {"dtype", e["dtype"]}};
      }
      h = boost::json::serialize(out);
    });
  });
  Add(n, "safetensors-tensor-name-invalid", "spaces and non-ASCII, no control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.a b \xE2\x9C\x93", "encoder", "float32", {1}, ""});
    });
  });
}

}  // namespace ckpt::testing
