// Fire cases of the model rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddModelFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  ModelCase(c, "model-index-invalid", "weight_map is a list", [] {
    return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["weight_map"] = boost::json::array(); }); });
  });
  ModelCase(c, "model-index-invalid", "duplicate key", [] {
    return Model(2, [](Files& f) {
      f["model.safetensors.index.json"] =
          Replace(f.at("model.safetensors.index.json"), "{\"metadata\"", "{\"weight_map\":{},\"metadata\"");
    });
  });
  ModelCase(c, "model-index-unknown-key", "extra top-level key",
            [] { return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["extra"] = 1; }); }); });
  ModelCase(c, "model-index-path-escape", "shard path with ..", [] {
    return Model(2, [](Files& f) {
      EditIndex(f, [](auto& i) { i["weight_map"].as_object()["predictor.head.weight"] = "../other/" + kShardB; });
    });
  });
  ModelCase(c, "model-shard-missing", "second shard absent",
            [] { return Model(2, [](Files& f) { f.erase(kShardB); }); });
  ModelCase(c, "model-index-wrong-shard", "tensor mapped to the other shard", [] {
    return Model(2, [](Files& f) {
      EditIndex(f, [](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.weight"] = kShardB; });
    });
  });
  ModelCase(c, "model-tensor-unmapped", "one tensor left out of weight_map", [] {
    return Model(
        2, [](Files& f) { EditIndex(f, [](auto& i) { i["weight_map"].as_object().erase("predictor.head.weight"); }); });
  });
  ModelCase(c, "model-tensor-in-two-shards", "shard copied over the other",
            [] { return Model(2, [](Files& f) { f[kShardB] = f.at(kShardA); }); });
  ModelCase(c, "model-shard-name", "shards named by hand", [] {
    return Model(2, [](Files& f) {
      f["part-a.safetensors"] = f.at(kShardA);
      f["part-b.safetensors"] = f.at(kShardB);
      f.erase(kShardA);
      f.erase(kShardB);
      EditIndex(f, [](auto& i) {
        for (auto& [tensor, file] : i["weight_map"].as_object()) {
          file = file.as_string() == kShardA ? "part-a.safetensors" : "part-b.safetensors";
        }
      });
    });
  });
  ModelCase(c, "model-unreferenced-weights", "a stray safetensors file beside the index", [] {
    return Model(2, [](Files& f) { f["extra.safetensors"] = ModelFolderSpec{}.Build().at("model.safetensors"); });
  });
  ModelCase(c, "model-total-size", "mlx-style: the shard file sizes", [] {
    return Model(2, [](Files& f) {
      const std::uint64_t files = f.at(kShardA).size() + f.at(kShardB).size();
      EditIndex(f, [&](auto& i) { i["metadata"].as_object()["total_size"] = files; });
    });
  });
  ModelCase(c, "model-total-size", "some other number", [] {
    return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["metadata"].as_object()["total_size"] = 7; }); });
  });
  ModelCase(c, "model-symlink", "link outside a cache",
            [] { return Model(1, [](Files& f) { f["tokenizer.json"] = SymlinkTo("/etc/hostname"); }); });
  {
    FireCase fc{"model-special-file", CI, "FIFO beside the weights", [] { return Model(1, [](Files&) {}); }};
    fc.form = InputForm::kFolder;
    fc.input_name = "model";
    fc.entries = {{"pipe", EntryKind::kOther}};
    c.push_back(std::move(fc));
  }
  ModelCase(c, "model-executable", "ELF binary", [] {
    return Model(1, [](Files& f) {
      f["bin/helper"] = std::string(
          "\x7f"
          "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
          16);
    });
  });
  ModelCase(c, "model-archive", "zip of documents", [] {
    return Model(1, [](Files& f) {
      f["extras.zip"] = std::string("PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x0a\0\0\0readme.txt", 40);
    });
  });
  ModelCase(c, "model-remote-code", "Python file",
            [] { return Model(1, [](Files& f) { f["modeling_custom.py"] = "import os\n"; }); });
  ModelCase(c, "model-remote-code", "auto_map in config.json", [] {
    return Model(1, [](Files& f) { f["config.json"] = R"({"auto_map": {"AutoModel": "modeling_custom.Model"}})"; });
  });
  // CVE-2026-4372: an attention implementation naming a kernels-hub repository (an error).
  ModelCase(c, "model-remote-code", "attention kernel from the Hub", [] {
    return Model(1, [](Files& f) {
      f["config.json"] = R"({"model_type": "llama", "_attn_implementation_internal": "attacker/evil-kernel"})";
    });
  });
  ModelCase(c, "model-remote-code", "auto_map in processor_config.json", [] {
    return Model(1, [](Files& f) {
      f["processor_config.json"] = R"({"auto_map": {"AutoProcessor": "other/repo--processing_x.XProcessor"}})";
    });
  });
  ModelCase(c, "model-remote-code", "diffusers component from the repository", [] {
    return Model(1, [](Files& f) {
      f["model_index.json"] =
          R"({"_class_name": "StableDiffusionPipeline", "unet": ["my_unet", "MyUNet"], "vae": ["diffusers", "AutoencoderKL"]})";
    });
  });
  ModelCase(c, "model-remote-code", "sentence-transformers module of another package", [] {
    return Model(1, [](Files& f) {
      f["modules.json"] = R"([{"idx": 0, "name": "0", "path": "", "type": "custom_st.Transformer"}])";
    });
  });
  ModelCase(c, "model-remote-code", "trust_remote_code in generation_config.json", [] {
    return Model(1, [](Files& f) { f["generation_config.json"] = R"({"trust_remote_code": true, "max_length": 20})"; });
  });
  ModelCase(c, "model-config-invalid", "config.json cut short",
            [] { return Model(1, [](Files& f) { f["config.json"] = "{\"model_type\": "; }); });
  // A YAML config with an alias: its targets cannot be checked (code-in-metadata.md section 1).
  ModelCase(c, "model-config-invalid", "YAML config with an anchor",
            [] { return Model(1, [](Files& f) { f["hparams.yaml"] = "base: &b {lr: 1}\nmodel: *b\n"; }); });
  CacheCase(c, "model-path-escape", "cache link leaving the repository", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    cache["evil.json"] = SymlinkTo("../../../../outside.json");
    return cache;
  });
  CacheCase(c, "model-blob-digest", "tampered LFS blob", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    std::string& blob = cache.at(BlobOf(cache, "model.safetensors"));
    blob.back() = static_cast<char>(blob.back() ^ 0x01);
    return cache;
  });
  CacheCase(c, "model-blob-digest", "tampered git blob", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    cache.at(BlobOf(cache, "config.json")) = R"({"model_type": "other", "hidden_size": 4})";
    return cache;
  });
}

}  // namespace ckpt::testing
