// Near misses of the input rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddInputNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  TarNear(
      n, "input-compressed", "a tar whose first bytes spell a bzip2 magic", [](TarSpec&) {}, "BZh9-round/");
  {
    NearMiss m{"input-unrecognised", "safetensors named model.bin", [] {
                 return Files{{"model.bin", Clean().at("weights.safetensors")}};
               }};
    m.form = InputForm::kFile;
    n.push_back(std::move(m));
  }
  ModelNear(n, "input-no-weights", "configuration beside one safetensors file", [] {
    return Files{{"config.json", R"({"model_type": "bert"})"},
                 {"model.safetensors",
                  SafetensorsFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'))}};
  });
  {
    NearMiss m{"input-kind-unexpected", "a safetensors file where safetensors are expected", [] {
                 return Files{
                     {"model.safetensors", SafetensorsFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                                                           std::string(4, '\0'))}};
               }};
    m.form = InputForm::kFile;
    m.policy.expected_kinds = {InputKind::kSafetensors};
    n.push_back(std::move(m));
  }
  PickleNear(n, "input-polyglot", "tensor bytes holding stray zip signatures", "model.safetensors", [] {
    std::string data(512, '\x33');
    data.replace(100, 4, std::string("PK\x03\x04", 4));
    data.replace(data.size() - 30, 4, std::string("PK\x05\x06", 4));
    return SafetensorsFile(R"({"w":{"dtype":"U8","shape":[512],"data_offsets":[0,512]}})", data);
  });
  PickleNear(n, "input-name-mismatch", "pickle named .pkl", "state.pkl", [] { return Proto(2) + kEmptyDict + kStop; });

  {
    // The same shard beside an index of another model's shards (a folder holding two models).
    NearMiss miss{"input-shard-alone", "an index beside it that names other files", [] {
                    ModelFolderSpec spec;
                    spec.shards = 2;
                    spec.config = false;
                    Files files = spec.Build();
                    std::string& index = files.at("model.safetensors.index.json");
                    for (std::size_t at = index.find("model-0"); at != std::string::npos;
                         at = index.find("model-0", at)) {
                      index.replace(at, 7, "other-0");
                    }
                    return files;
                  }};
    miss.form = InputForm::kFile;
    n.push_back(std::move(miss));
  }

  {
    // The same folder written as files of its own (the symlinks of a hub cache are judged apart).
    NearMiss miss{"input-hard-link", "the same shards, each file with one link", [] {
                    ModelFolderSpec spec;
                    spec.shards = 2;
                    return spec.Build();
                  }};
    miss.form = InputForm::kFolder;
    n.push_back(std::move(miss));
  }
}

}  // namespace ckpt::testing
