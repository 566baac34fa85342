// Near misses of the config rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddConfigNearMisses(std::vector<NearMiss>& n) {
  // Allowlisted NeMo and torch.nn classes, and a plain JSON `class` key with no Hydra companion.
  ModelNear(n, "config-target-unsafe", "allowlisted targets and a plain class key", [] {
    Files f = ModelFolderSpec{}.Build();
    f["hparams.yaml"] =
        "model:\n  _target_: nemo.collections.asr.models.EncDecCTCModel\n  act:\n    _target_: torch.nn.ReLU\n";
    f["preprocessor_config.json"] = R"({"class": "ImageProcessor", "size": 224})";
    return f;
  });
  // Archives of the folder whose configuration members name allowlisted targets only.
  ModelNear(n, "config-target-unsafe", "allowlisted targets in archive members", [] {
    Files f = ModelFolderSpec{}.Build();
    f["configs.zip"] = pk::ZipOf({{"train.yaml", "model:\n  _target_: torch.nn.Linear\n"}}, true);
    TarSpec tar;
    tar.members.push_back(Member("exp/hparams.json", R"({"optim": {"_target_": "torch.optim.AdamW"}})"));
    f["experiment.tar"] = BuildTar(tar);
    return f;
  });
  n.back().clean = false;  // model-archive names each archive
  // Metadata holding an allowlisted JSON config, and prose with a colon (YAML, but no target).
  PickleNear(n, "config-target-unsafe", "allowlisted config and prose in __metadata__", "model.safetensors", [] {
    const boost::json::object metadata{{"format", "pt"},
                                       {"training", R"({"optimizer": {"_target_": "torch.optim.AdamW"}})"},
                                       {"note", "lr: 0.001, see the model card"}};
    return SafetensorsFile("{\"__metadata__\":" + boost::json::serialize(metadata) +
                               ",\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                           std::string(4, '\0'));
  });
  // A GGUF *config string with an allowlisted target.
  GgufNear(n, "config-target-unsafe", "GGUF *config string with a torch.nn target", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.model_config", R"({"act": {"_target_": "torch.nn.GELU"}})"));
    return s;
  });
}

}  // namespace ckpt::testing
