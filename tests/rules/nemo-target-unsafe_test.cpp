// The NeMo module and its rules (formats.md section 9) on archives laid out as NeMo's
// SaveRestoreConnector writes them, with Debian's python3-torch writing the checkpoint
// (tests/nemo/make_nemo.py; Debian has no NeMo): a clean archive passes with the checkpoint's
// tensors and its pickle-format-note, alone and in a model folder; a target outside the
// allowlist, a billion-laughs config, a python tag, a payload checkpoint (which never runs) and
// a member nested too deep fail, alone and in a folder; a gzip archive stays compressed.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "lib/load/input.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class NemoFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("nemo", dir_->path());
    marker_ = made.made_in / "payload-ran";  // the path the payloads would touch
    if (!made.ok) missing_ = "make_nemo.py failed (python3-torch): " + made.problem;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static AuditResult Audit(const std::string& name) { return AuditPath((dir_->path() / name).string(), {}); }
  // `name` as model.nemo, the only weights of a model folder.
  static AuditResult AuditInFolder(const std::string& name) {
    const fs::path folder = dir_->path() / ("folder-" + name);
    fs::create_directories(folder);
    WriteText(folder / "README.md", "# an ASR model\n");
    fs::copy_file(dir_->path() / name, folder / "model.nemo", fs::copy_options::overwrite_existing);
    return AuditPath(folder.string(), {});
  }
  static inline TempDir* dir_ = nullptr;
  static inline fs::path marker_;
  static inline std::string missing_;
};

std::vector<std::string> TensorNames(const AuditResult& result) {
  std::vector<std::string> out;
  for (const WeightFile* wf : result.artifact.ListedWeightFiles()) {
    for (const StoredTensor& t : wf->tensors) out.push_back(t.name + " " + t.dtype + " " + wf->name);
  }
  return out;
}

TEST_F(NemoFiles, AnArchiveAsNemoWritesItPassesWithItsCheckpointsTensors) {
  const AuditResult alone = Audit("clean.nemo");
  EXPECT_EQ(InputKindName(alone.artifact.kind), "nemo");
  EXPECT_EQ(TensorNames(alone), (std::vector<std::string>{"encoder.weight F32 ", "decoder.bias F32 "}));
  ASSERT_EQ(alone.findings.size(), 1U) << Describe(alone);
  EXPECT_EQ(alone.findings[0].message,
            "This file is a NeMo archive whose model_weights.ckpt is a torch.save checkpoint: pickle-based format, "
            "prefer safetensors (loading it runs whatever it names).");
  const AuditResult folder = AuditInFolder("clean.nemo");
  EXPECT_EQ(VerdictOf(folder, Severity::kError), Verdict::kPass) << Describe(folder);
  // Issue 46: a folder holding a .nemo (a tar) is a model folder, not a folder of Lensemble
  // rounds: the command line audits the folder, README and all, not the archive alone.
  const std::string holding = (dir_->path() / "folder-clean.nemo").string();
  EXPECT_EQ(ExpandInputPath(holding), std::vector<std::string>{holding});
  EXPECT_EQ(TensorNames(folder),
            (std::vector<std::string>{"encoder.weight F32 model.nemo", "decoder.bias F32 model.nemo"}));
  EXPECT_TRUE(HasFinding(folder, "pickle-format-note", "'model.nemo' is a NeMo archive")) << Describe(folder);
}

TEST_F(NemoFiles, ATargetOutsideTheAllowlistFails) {
  for (const AuditResult& result : {Audit("target.nemo"), AuditInFolder("target.nemo")}) {
    const auto found = FindingsOf(result, "nemo-target-unsafe");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_NE(found[0]->message.find("The _target_ at line 9 is 'os.system': restoring the model instantiates it"),
              std::string::npos)
        << found[0]->message;
    EXPECT_EQ(found[0]->location.line, 9U);
    EXPECT_TRUE(found[0]->location.file.ends_with("model_config.yaml")) << found[0]->location.file;
  }
}

// Issue 46: Hydra 0.x's `cls` (with `params`) is a target too: NeMo's _convert_config turns it
// into `_target_` before it instantiates the config. A NeMo class under `cls` stays quiet.
TEST_F(NemoFiles, AHydraZeroClsKeyIsATarget) {
  for (const AuditResult& result : {Audit("cls.nemo"), AuditInFolder("cls.nemo")}) {
    const auto found = FindingsOf(result, "nemo-target-unsafe");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_EQ(found[0]->message,
              "The cls at line 14 is 'os.system': restoring the model instantiates it (Hydra), and only "
              "nemo.collections / nemo.core classes and torch.nn, torch.optim and torch.utils.data classes are "
              "allowed.");
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
  for (const AuditResult& result : {Audit("cls_allowed.nemo"), AuditInFolder("cls_allowed.nemo")}) {
    EXPECT_TRUE(FindingsOf(result, "nemo-target-unsafe").empty()) << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass) << Describe(result);
  }
}

TEST_F(NemoFiles, AnchorsAndTagsAreRefusedBeforeAnythingExpands) {
  for (const AuditResult& result : {Audit("laughs.nemo"), AuditInFolder("laughs.nemo")}) {
    EXPECT_TRUE(HasFinding(result, "nemo-config-invalid", "it declares an anchor (&'a')")) << Describe(result);
  }
  for (const AuditResult& result : {Audit("tagged.nemo"), AuditInFolder("tagged.nemo")}) {
    EXPECT_TRUE(
        HasFinding(result, "nemo-config-invalid", "it uses the tag 'tag:yaml.org,2002:python/object/apply:os.system'"))
        << Describe(result);
  }
}

TEST_F(NemoFiles, APayloadCheckpointFailsInPlaceAndNeverRuns) {
  for (const AuditResult& result : {Audit("payload.nemo"), AuditInFolder("payload.nemo")}) {
    const auto found = FindingsOf(result, "pickle-call-unsafe");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_TRUE(found[0]->location.file.ends_with("model_weights.ckpt")) << found[0]->location.file;
    EXPECT_NE(found[0]->message.find("calls posix.system('touch "), std::string::npos) << found[0]->message;
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
  // An artifact member that is a pickle is analysed too: NeMo hands artifacts to loaders.
  const AuditResult artifact = Audit("artifact.nemo");
  const auto found = FindingsOf(artifact, "pickle-call-unsafe");
  ASSERT_EQ(found.size(), 1U) << Describe(artifact);
  EXPECT_EQ(found[0]->location.file, "5e6f_tokenizer.pkl");
  EXPECT_FALSE(fs::exists(marker_));
}

TEST_F(NemoFiles, AMemberNestedPastEightFoldersFailsAndAGzipArchiveStaysCompressed) {
  for (const AuditResult& result : {Audit("deep.nemo"), AuditInFolder("deep.nemo")}) {
    EXPECT_TRUE(HasFinding(result, "tar-member-layout", "/notes.txt' nests deeper than 8 folders")) << Describe(result);
  }
  const AuditResult gzip = Audit("gzip.nemo");
  EXPECT_EQ(InputKindName(gzip.artifact.kind), "compressed");
  EXPECT_TRUE(HasFinding(gzip, "input-compressed", "is a gzip stream, a compressed archive: decompress it first"));
}

}  // namespace
}  // namespace ckpt::testing
