// input-kind-unexpected: a gate told which kinds it admits refuses any other kind, from
// the API, --expect-kind and the policy file's expect_kinds; an admitted kind stays quiet.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

TEST(Rule_input_kind_unexpected, APickleWhereSafetensorsAreExpectedFails) {
  AuditOptions policy;
  policy.expected_kinds = {InputKind::kSafetensors, InputKind::kModelFolder};
  const AuditResult result = AuditInput({{"model.bin", pk::OneTensorZip()}}, InputForm::kFile, "", policy);
  ASSERT_EQ(FindingsOf(result, "input-kind-unexpected").size(), 1U) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "input-kind-unexpected")[0]->message,
            "The input is torch-zip, not a kind the gate admits (safetensors, model-folder).");
}

TEST(Rule_input_kind_unexpected, NearMissAnAdmittedKindStaysQuiet) {
  AuditOptions policy;
  policy.expected_kinds = {InputKind::kTorchZip};
  const AuditResult result = AuditInput({{"model.bin", pk::OneTensorZip()}}, InputForm::kFile, "", policy);
  EXPECT_TRUE(FindingsOf(result, "input-kind-unexpected").empty()) << Describe(result);
}

TEST(Rule_input_kind_unexpected, CommandLineAndPolicyFile) {
  TempDir tmp;
  WriteText(tmp.path() / "model.bin", pk::OneTensorZip());
  const std::string input = ShellQuote(tmp.path() / "model.bin");
  const CommandResult refused =
      RunCommand(std::string(CKPT_AUDIT_BIN) + " --expect-kind safetensors " + input + " 2>&1");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("error: The input is torch-zip, not a kind the gate admits (safetensors). "
                                "[input-kind-unexpected CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << refused.output;
  const CommandResult bogus = RunCommand(std::string(CKPT_AUDIT_BIN) + " --expect-kind zipfile " + input + " 2>&1");
  EXPECT_EQ(bogus.exit_code, 2) << bogus.output;
  EXPECT_NE(bogus.output.find("--expect-kind 'zipfile' is not an input kind"), std::string::npos) << bogus.output;
  WriteText(tmp.path() / "policy.json", R"({"expect_kinds": ["lensemble", "lensemble-tar"]})");
  const CommandResult from_file = RunCommand(std::string(CKPT_AUDIT_BIN) + " --policy " +
                                             ShellQuote(tmp.path() / "policy.json") + " " + input + " 2>&1");
  EXPECT_EQ(from_file.exit_code, 1) << from_file.output;
  EXPECT_NE(from_file.output.find("not a kind the gate admits (lensemble, lensemble-tar)"), std::string::npos)
      << from_file.output;
  WriteText(tmp.path() / "bad.json", R"({"expect_kinds": ["tarball"]})");
  const CommandResult bad = RunCommand(std::string(CKPT_AUDIT_BIN) + " --policy " +
                                       ShellQuote(tmp.path() / "bad.json") + " " + input + " 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("expect_kinds names 'tarball', which is not an input kind"), std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace ckpt::testing
