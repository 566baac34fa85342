// Near misses of the model rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddModelNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  ModelNear(n, "model-index-invalid", "metadata without total_size", [&] {
    Files f = ShardedModel(2);
    boost::json::value index = boost::json::parse(f.at("model.safetensors.index.json"));
    index.as_object()["metadata"] = {{"format", "pt"}};
    f["model.safetensors.index.json"] = boost::json::serialize(index);
    return f;
  });
  ModelNear(n, "model-index-unknown-key", "extra keys inside metadata", [&] {
    Files f = ShardedModel(2);
    boost::json::value index = boost::json::parse(f.at("model.safetensors.index.json"));
    index.as_object()["metadata"].as_object()["mergekit_version"] = "0.1";
    f["model.safetensors.index.json"] = boost::json::serialize(index);
    return f;
  });
  ModelNear(n, "model-index-path-escape", "tensor names holding '/' and '..'", [] {
    ModelFolderSpec spec;
    spec.shards = 2;
    spec.tensors[0].name = "encoder/../blocks.0.weight";
    return spec.Build();
  });
  ModelNear(n, "model-shard-missing", "save_pretrained, 3 shards", [&] { return ShardedModel(3); });
  ModelNear(n, "model-index-wrong-shard", "save_pretrained, 2 shards", [&] { return ShardedModel(2); });
  ModelNear(n, "model-tensor-unmapped", "diffusers component with its own index", [] {
    ModelFolderSpec unet;
    unet.shards = 2;
    unet.prefix = "diffusion_pytorch_model";
    Files f = InFolder(unet.Build(), "unet");
    f["model_index.json"] = R"({"_class_name": "TestPipeline", "unet": ["diffusers", "UNet2DModel"]})";
    return f;
  });
  ModelNear(n, "model-tensor-in-two-shards", "two components with the same tensor names", [] {
    ModelFolderSpec component;
    component.prefix = "diffusion_pytorch_model";
    Files f = InFolder(component.Build(), "unet");
    for (auto& [name, bytes] : InFolder(component.Build(), "vae")) f[name] = bytes;
    return f;
  });
  ModelNear(n, "model-shard-name", "1-based names, 5 shards", [] {
    ModelFolderSpec spec;
    spec.shards = 5;
    return spec.Build();
  });
  ModelNear(n, "model-unreferenced-weights", "two stand-alone files, no index", [] {
    Files f = ModelFolderSpec{}.Build();
    f["model.fp16.safetensors"] = f.at("model.safetensors");
    return f;
  });
  ModelNear(n, "model-total-size", "total_size as transformers writes it", [&] { return ShardedModel(2); });
  ModelNear(
      n, "model-symlink", "hub-cache snapshot", [] { return HubCache(ModelFolderSpec{}.Build()); }, kSnapshot);
  ModelNear(
      n, "model-path-escape", "cache links from a component folder",
      [] {
        ModelFolderSpec component;
        component.prefix = "diffusion_pytorch_model";
        return HubCache(InFolder(component.Build(), "unet"));
      },
      kSnapshot);
  ModelNear(
      n, "model-blob-digest", "intact LFS and git blobs", [] { return HubCache(ModelFolderSpec{}.Build()); },
      kSnapshot);
  ModelNear(n, "model-special-file", "a regular file named pipe", [] {
    Files f = ModelFolderSpec{}.Build();
    f["pipe"] = "not a FIFO";
    return f;
  });
  ModelNear(n, "model-executable", "binary tokenizer model", [] {
    Files f = ModelFolderSpec{}.Build();
    f["tokenizer.model"] = std::string("\x0a\x0b\x0a\x05<unk>\x15\0\0\0\0\x18\x02", 15);
    return f;
  });
  ModelNear(n, "model-archive", "JSON named weights.zip", [] {
    Files f = ModelFolderSpec{}.Build();
    f["generation.zip"] = R"({"max_length": 20})";
    return f;
  });
  ModelNear(n, "model-remote-code", "config.json with architectures only", [] {
    Files f = ModelFolderSpec{}.Build();
    f["config.json"] = R"({"architectures": ["BertModel"], "model_type": "bert"})";
    f["README.md"] = "Load with modeling_bert.py from transformers.";
    return f;
  });
  // Built-in attention implementations, diffusers' and transformers' own components (and a
  // diffusers pipeline module), sentence-transformers' own modules, trust_remote_code false.
  ModelNear(n, "model-remote-code", "built-in attention and library components", [] {
    Files f = ModelFolderSpec{}.Build();
    f["config.json"] =
        R"({"_attn_implementation": "sdpa", "text_config": {"attn_implementation": "paged|flash_attention_2"}, "vision_config": {"_attn_implementation_internal": null}, "trust_remote_code": false})";
    f["model_index.json"] =
        R"({"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.30.0", "unet": ["diffusers", "UNet2DConditionModel"], "text_encoder": ["transformers", "CLIPTextModel"], "safety_checker": ["stable_diffusion", "StableDiffusionSafetyChecker"], "image_encoder": [null, null]})";
    f["modules.json"] =
        R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}, {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])";
    f["generation_config.json"] = R"({"max_length": 20, "custom_generate": null})";
    return f;
  });
  ModelNear(n, "model-config-invalid", "config.json with non-ASCII and nesting", [] {
    Files f = ModelFolderSpec{}.Build();
    f["config.json"] = R"({"id2label": {"0": "caf\u00e9", "1": "na\u00efve"}, "nested": [[[1]]]})";
    return f;
  });
}

}  // namespace ckpt::testing
