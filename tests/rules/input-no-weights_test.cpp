// input-no-weights: a folder with nothing to audit fails; a folder with any weight file, and
// a folder of Lensemble names without header.json (a Lensemble artifact that lost its
// header), are judged as what they are.
#include <gtest/gtest.h>

#include "tests/support/audit_helpers.h"
#include "tests/support/fire_cases.h"
#include "tests/support/pickle_builder.h"

namespace ckpt::testing {
namespace {

TEST(Rule_input_no_weights, AnEmptyFolderOrOneOfConfigurationOnlyFails) {
  const AuditResult empty = AuditInput({}, InputForm::kFolder, "empty");
  ASSERT_EQ(FindingsOf(empty, "input-no-weights").size(), 1U) << Describe(empty);
  EXPECT_EQ(FindingsOf(empty, "input-no-weights")[0]->message,
            "The folder holds no weight file (safetensors, pickle-based or GGUF) and no artifact: it is empty. "
            "Nothing was audited.");
  const AuditResult config = AuditInput(
      {{"config.json", R"({"model_type": "bert"})"}, {"README.md", "# a model card\n"}}, InputForm::kFolder, "model");
  ASSERT_EQ(FindingsOf(config, "input-no-weights").size(), 1U) << Describe(config);
  EXPECT_EQ(FindingsOf(config, "input-no-weights")[0]->message,
            "The folder holds no weight file (safetensors, pickle-based or GGUF) and no artifact, only 2 other files. "
            "Nothing was audited.");
}

TEST(Rule_input_no_weights, ALensembleRoundWithoutItsHeaderIsALensembleArtifact) {
  Files round = Clean();
  round.erase("header.json");
  const AuditResult result = AuditInput(round, InputForm::kFolder, "round-0003");
  EXPECT_EQ(result.artifact.kind, InputKind::kLensemble) << Describe(result);
  EXPECT_FALSE(FindingsOf(result, "layout-header-missing").empty()) << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "input-no-weights").empty()) << Describe(result);
}

TEST(Rule_input_no_weights, NearMissAFolderWithAnyWeightFileStaysQuiet) {
  const AuditResult pickle =
      AuditInput({{"config.json", "{}"}, {"pytorch_model.bin", pk::OneTensorZip()}}, InputForm::kFolder, "model");
  EXPECT_TRUE(FindingsOf(pickle, "input-no-weights").empty()) << Describe(pickle);
  // Lensemble names beside a config.json: a model folder, with its weights.
  Files mixed = Clean();
  mixed.erase("header.json");
  mixed["config.json"] = "{}";
  const AuditResult folder = AuditInput(mixed, InputForm::kFolder, "model");
  EXPECT_EQ(folder.artifact.kind, InputKind::kModelFolder);
  EXPECT_TRUE(FindingsOf(folder, "input-no-weights").empty()) << Describe(folder);
}

}  // namespace
}  // namespace ckpt::testing
