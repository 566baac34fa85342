// Fire cases of the weights rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddWeightsFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  Add(c, "weights-file-empty", CI, "empty", WeightsAs(""));
  Add(c, "weights-format-pickle", CI, "protocol 4", WeightsAs(std::string("\x80\x04\x95\x05\0\0\0\0\0\0\0}\x94.", 14)));
  Add(c, "weights-format-pickle", CI, "protocol 2 short", WeightsAs("\x80\x02."));
  Add(c, "weights-format-zip", CI, "torch.save",
      WeightsAs(std::string("PK\x03\x04\x14\0\0\0\0\0archive/data.pkl", 26)));
  Add(c, "weights-format-numpy", CI, "npy", WeightsAs(std::string("\x93NUMPY\x01\0v\0{'descr': '<f4'}", 26)));
  Add(c, "weights-format-gguf", CI, "gguf v3", WeightsAs(std::string("GGUF\x03\0\0\0\0\0\0\0\0\0\0\0", 16)));
  Add(c, "weights-format-git-lfs-pointer", CI, "pointer",
      WeightsAs("version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') + "\nsize 456\n"));
  Add(c, "weights-format-html", CI, "doctype", WeightsAs("<!DOCTYPE html><html><body>403 Forbidden</body></html>"));
  Add(c, "weights-format-html", CI, "leading whitespace", WeightsAs("\n  <HTML><body>login</body></HTML>"));
  Add(c, "weights-tensor-in-two-files", CI, "copy in shard 1", [] {
    Files f = Sharded();
    auto parts = SplitSafetensors(f[kShard0]);
    boost::json::object h0 = boost::json::parse(parts.header).as_object();
    auto parts1 = SplitSafetensors(f[kShard1]);
    boost::json::object h1 = boost::json::parse(parts1.header).as_object();
    std::uint64_t end = parts1.data.size();
    boost::json::object entry = h0["encoder.blocks.0.bias"].as_object();
    auto& offs = entry["data_offsets"].as_array();
    std::uint64_t len = offs[1].to_number<std::uint64_t>() - offs[0].to_number<std::uint64_t>();
    std::string bytes = parts.data.substr(offs[0].to_number<std::size_t>(), len);
    entry["data_offsets"] = boost::json::array{end, end + len};
    h1["encoder.blocks.0.bias"] = entry;
    f[kShard1] = SafetensorsFile(boost::json::serialize(h1), parts1.data + bytes);
    return f;
  });
  Add(c, "weights-metadata-content-hash", CI, "other hash", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"content_hash", std::string(64, 'e')}); });
  });
  Add(c, "weights-metadata-schema-version", CI, "2 vs 1", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"schema_version", "2"}); });
  });
  Add(c, "weights-files-mismatch", CI, "header says single", [] {
    Files f = Sharded();
    EditHeader(f, [](auto& h) { h["weight_files"] = boost::json::array{"weights.safetensors"}; });
    return f;
  });
  ModelCase(c, "weights-format-pickle", "pickle named model.safetensors",
            [] { return Model(1, [](Files& f) { f["model.safetensors"] = std::string("\x80\x02}q\x00.", 6); }); });
}

}  // namespace ckpt::testing
