// torchscript-code, torchscript-export and torchscript-native-code (formats.md section 4) on
// archives real writers make: torch.jit.save of a traced module from Debian's python3-torch
// (deflated code members and all), and .pt2 zips laid out as torch.export.save writes them
// (Debian's torch 1.13 has no torch.export). Alone and inside a model folder, each is refused
// for what it is and lists no tensor; a torch.save zip beside it stays a torch zip.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

// torch.jit.save of a traced Linear(2, 3) (tests/torch/make_traced_module.py), as traced.pt
// in `folder`; false when python3-torch is missing.
bool WroteTracedModule(const fs::path& folder) {
  const PythonMade made = MadeByPython("traced-module", folder);
  if (made.missing_module) return false;
  EXPECT_TRUE(made.ok) << made.problem;
  return made.ok;
}

TEST(Rule_torchscript_code, ATracedModuleSavedByTorchIsRefusedWithItsCodeMembersNamed) {
  TempDir dir;
  if (!WroteTracedModule(dir.path())) {
    CKPT_MISSING_PREREQUISITE() << "python3-torch missing (scripts/install-deps --test installs it)";
  }
  const fs::path traced = dir.path() / "traced.pt";
  const AuditResult result = AuditPath(traced.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "torchscript");
  const auto found = FindingsOf(result, "torchscript-code");
  ASSERT_EQ(found.size(), 1U) << Describe(result);
  EXPECT_NE(found[0]->message.find("A TorchScript archive (torch.jit.save) with "), std::string::npos);
  EXPECT_NE(found[0]->message.find("code members ('traced/code/__torch__"), std::string::npos) << found[0]->message;
  EXPECT_NE(found[0]->message.find("loading this archive runs its TorchScript code"), std::string::npos);
  // torch.jit.save deflates its code members: that is its format, not a zip finding.
  EXPECT_TRUE(FindingsOf(result, "zip-member-compressed").empty()) << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "pickle-format-note").empty()) << Describe(result);
  ASSERT_EQ(result.artifact.weights.size(), 1U);
  EXPECT_TRUE(result.artifact.weights.front().tensors.empty());
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST(Rule_torchscript_code, ATracedModuleFailsTheModelFolderItSitsIn) {
  TempDir dir;
  const fs::path folder = dir.path() / "model";
  WriteFiles(ModelFolderSpec{}.Build(), folder);
  if (!WroteTracedModule(dir.path() / "traced")) {
    CKPT_MISSING_PREREQUISITE() << "python3-torch missing (scripts/install-deps --test installs it)";
  }
  fs::copy_file(dir.path() / "traced" / "traced.pt", folder / "traced_model.pt");
  const AuditResult result = AuditPath(folder.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "model-folder");
  const auto found = FindingsOf(result, "torchscript-code");
  ASSERT_EQ(found.size(), 1U) << Describe(result);
  EXPECT_EQ(found[0]->location.file, "traced_model.pt");
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST(Rule_torchscript_export, APt2PackageWithASharedObjectFailsAModelFolderTwice) {
  TempDir dir;
  const fs::path folder = dir.path() / "model";
  Files files = ModelFolderSpec{}.Build();
  files["model.pt2"] = pk::ZipOf({{"model/archive_format", "pt2"},
                                  {"model/archive_version", "0"},
                                  {"model/models/model.json", "{}"},
                                  {"model/data/aotinductor/model/model.so",
                                   "\x7f"
                                   "ELF" +
                                       std::string(60, '\1')}},
                                 /*deflate=*/true);
  WriteFiles(files, folder);
  const AuditResult result = AuditPath(folder.string(), AuditOptions{});
  EXPECT_TRUE(HasFinding(result, "torchscript-export", "A torch.export program archive ('model/archive_format')"))
      << Describe(result);
  EXPECT_TRUE(HasFinding(result, "torchscript-native-code",
                         "Member 'model/data/aotinductor/model/model.so' is an ELF shared object"))
      << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "model-archive").empty()) << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST(Rule_torchscript_export, TheTorch22LayoutIsRecognisedByItsProgramMember) {
  TempDir dir;
  const fs::path pt2 = dir.path() / "exported.pt2";
  WriteFiles({{"exported.pt2", pk::ZipOf({{"exported/serialized_exported_program.json", "{}"},
                                          {"exported/serialized_state_dict.pt", "x"},
                                          {"exported/version", "1"}})}},
             dir.path());
  const AuditResult result = AuditPath(pt2.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "torch-export");
  EXPECT_TRUE(HasFinding(result, "torchscript-export", "('exported/serialized_exported_program.json') with 3 members"))
      << Describe(result);
}

}  // namespace
}  // namespace ckpt::testing
