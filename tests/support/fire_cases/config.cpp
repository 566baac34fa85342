// Fire cases of the config rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddConfigFireCases(std::vector<FireCase>& c) {
  // A Hydra config beside the weights whose target is os.system (CVE-2025-23304's shape).
  ModelCase(c, "config-target-unsafe", "_target_ os.system in a YAML config", [] {
    return Model(1, [](Files& f) {
      f["hparams.yaml"] = "model:\n  encoder:\n    _target_: os.system\n    command: touch /tmp/pwned\n";
    });
  });
  // Hydra 0.x: `class` beside `params`, in a JSON file of the folder.
  ModelCase(c, "config-target-unsafe", "Hydra 0.x class beside params in JSON", [] {
    return Model(1, [](Files& f) {
      f["train_config.json"] = R"({"optim": {"class": "subprocess.Popen", "params": {"args": ["id"]}}})";
    });
  });
  // Configurations inside an archive of the folder: a deflated zip member and a tar member.
  ModelCase(c, "config-target-unsafe", "YAML member of a zip and JSON member of a tar", [] {
    return Model(1, [](Files& f) {
      f["configs.zip"] = pk::ZipOf(
          {{"configs/README.md", "notes"}, {"configs/train.yaml", "trainer:\n  _target_: os.system\n"}}, true);
      TarSpec tar;
      tar.members.push_back(Member("exp/hparams.json", R"({"model": {"_target_": "builtins.eval"}})"));
      f["experiment.tar"] = BuildTar(tar);
    });
  });
  // A Hydra config kept in the weights' own metadata, as Apple FlexTok reads and instantiates it.
  PickleCase(c, "config-target-unsafe", "Hydra config in safetensors __metadata__", "model.safetensors", [] {
    const boost::json::object metadata{{"format", "pt"}, {"config", "model:\n  _target_: os.system\n  command: id\n"}};
    return SafetensorsFile("{\"__metadata__\":" + boost::json::serialize(metadata) +
                               ",\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                           std::string(4, '\0'));
  });
  // A GGUF string whose key ends in "config", holding a JSON Hydra config.
  GgufCase(c, "config-target-unsafe", "GGUF *config string with a _target_", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.model_config", R"({"decoder": {"_target_": "builtins.exec"}})"));
    return s;
  });
}

}  // namespace ckpt::testing
