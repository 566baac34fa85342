// Fire cases of the input rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddInputFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  {
    FireCase fc{"input-compressed", CI, "gzip", [] {
                  return Files{{"round.tar.gz", std::string("\x1f\x8b\x08\x00rest", 8)}};
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }
  {
    FireCase fc{"input-unrecognised", CI, "plain text", [] { return Files{{"model.bin", "hello, world\n"}}; }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }
  ModelCase(c, "input-no-weights", "configuration and a model card only", [] {
    return Files{{"config.json", R"({"model_type": "bert"})"}, {"README.md", "# a model card\n"}};
  });
  PickleCase(c, "input-name-mismatch", "pickle named safetensors", "model.safetensors",
             [] { return Proto(2) + kEmptyDict + kStop; });
  {
    FireCase fc{"input-kind-unexpected", CI, "a pickle where safetensors are expected", [] {
                  return Files{{"state.pkl", Proto(2) + kEmptyDict + kStop}};
                }};
    fc.form = InputForm::kFile;
    fc.policy.expected_kinds = {InputKind::kSafetensors, InputKind::kLensemble};
    c.push_back(std::move(fc));
  }
  PickleCase(c, "input-polyglot", "safetensors whose tensor bytes end in a zip", "model.safetensors", [] {
    const std::string zip = OneTensorZip();
    return SafetensorsFile(R"({"w":{"dtype":"U8","shape":[)" + std::to_string(zip.size()) + R"(],"data_offsets":[0,)" +
                               std::to_string(zip.size()) + "]}}",
                           zip);
  });

  {
    // The first of two shards given alone, the index naming it beside it (the Action's old
    // `paths: models/**/*.safetensors`): which folder to audit is the finding.
    FireCase fc{"input-shard-alone", CI, "a shard given alone beside its index", [] {
                  ModelFolderSpec spec;
                  spec.shards = 2;
                  spec.config = false;
                  return spec.Build();
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }

  {
    FireCase fc{"input-hard-link", CI, "a shard hard-linked from outside the folder", [] {
                  ModelFolderSpec spec;
                  spec.shards = 2;
                  return spec.Build();
                }};
    fc.form = InputForm::kFolder;
    fc.entries = {{"model-00002-of-00002.safetensors", EntryKind::kRegular}};
    c.push_back(std::move(fc));
  }
}

}  // namespace ckpt::testing
