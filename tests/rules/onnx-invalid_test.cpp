// The ONNX module and its rules (formats.md section 7) on models Debian's python3-onnx writes
// (tests/onnx/make_onnx.py): a model with a subgraph passes with every initializer listed and
// its ir_version and opsets in JSON, alone and as a model folder's only weights; external data
// alone is a warning; an escaping location, a PyOp node and nodes out of topological order
// (which onnx.checker refuses too) fail, alone and in a folder; a custom domain is a warning.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <filesystem>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class OnnxFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("onnx", dir_->path());
    if (!made.ok) missing_ = "make_onnx.py failed (python3-onnx): " + made.problem;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static AuditResult Audit(const std::string& name) { return AuditPath((dir_->path() / name).string(), {}); }
  static AuditResult AuditInFolder(const std::string& name) {
    const fs::path folder = dir_->path() / ("folder-" + name);
    fs::create_directories(folder);
    WriteText(folder / "README.md", "# a model\n");
    fs::copy_file(dir_->path() / name, folder / "model.onnx", fs::copy_options::overwrite_existing);
    return AuditPath(folder.string(), {});
  }
  static inline TempDir* dir_ = nullptr;
  static inline std::string missing_;
};

std::vector<std::string> TensorLines(const AuditResult& result) {
  std::vector<std::string> out;
  for (const WeightFile* wf : result.artifact.ListedWeightFiles()) {
    for (const StoredTensor& t : wf->tensors) {
      std::string line = t.name + " " + t.dtype + " [";
      for (std::size_t i = 0; i < t.shape.size(); ++i) line += (i > 0 ? "," : "") + std::to_string(t.shape[i]);
      out.push_back(line + "]");
    }
  }
  return out;
}

const std::vector<std::string> kInitializers = {"fc.weight F32 [3,4]", "fc.bias F32 [4]", "then.one F32 [4]"};

TEST_F(OnnxFiles, AModelWithASubgraphPassesWithEveryInitializerListed) {
  const AuditResult alone = Audit("model.onnx");
  EXPECT_EQ(InputKindName(alone.artifact.kind), "onnx");
  EXPECT_TRUE(alone.findings.empty()) << Describe(alone);
  EXPECT_EQ(TensorLines(alone), kInitializers);
  ASSERT_EQ(alone.artifact.weights.size(), 1U);
  ASSERT_NE(alone.artifact.weights.front().format_facts, nullptr);
  boost::json::object fields;
  alone.artifact.weights.front().format_facts->Describe(fields);
  EXPECT_EQ(boost::json::serialize(fields), R"({"ir_version":8,"opset_imports":[{"domain":"","version":17}]})");
  const AuditResult folder = AuditInFolder("model.onnx");
  EXPECT_TRUE(folder.findings.empty()) << Describe(folder);
  EXPECT_EQ(TensorLines(folder), kInitializers);
}

TEST_F(OnnxFiles, ExternalDataAloneIsNeverOpenedAndSaysSo) {
  const AuditResult result = Audit("external.onnx");
  EXPECT_TRUE(
      HasFinding(result, "onnx-external-data-unread",
                 "Tensor 'fc.weight' keeps its data in 'weights.data': audit the folder to check 'weights.data'."))
      << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass);
}

// In a folder, the data onnx.save_model wrote beside the model is resolved: present and sized,
// it passes and is listed as the model's external data (and hashed with the folder); absent,
// short or a symlink, it fails.
TEST_F(OnnxFiles, ExternalDataInAFolderIsResolvedAgainstTheFolder) {
  const fs::path folder = dir_->path() / "folder-external";
  fs::create_directories(folder);
  fs::copy_file(dir_->path() / "external.onnx", folder / "model.onnx", fs::copy_options::overwrite_existing);
  fs::copy_file(dir_->path() / "weights.data", folder / "weights.data", fs::copy_options::overwrite_existing);
  const AuditResult clean = AuditPath(folder.string(), {});
  EXPECT_TRUE(clean.findings.empty()) << Describe(clean);
  EXPECT_EQ(TensorLines(clean), kInitializers);
  ASSERT_TRUE(clean.artifact.model.has_value());
  bool listed = false;
  for (const InventoryItem& item : clean.artifact.model->inventory) {
    if (item.name == "weights.data") {
      listed = item.kind == InventoryClass::kExternalData && item.description == "external data of 'model.onnx'";
    }
  }
  EXPECT_TRUE(listed);
  bool hashed = false;
  for (const AdmittedFile& f : clean.artifact.files) hashed |= f.name == "weights.data";
  EXPECT_TRUE(hashed);

  fs::resize_file(folder / "weights.data", 40);
  EXPECT_TRUE(HasFinding(AuditPath(folder.string(), {}), "onnx-external-data-range",
                         "Tensor 'fc.weight''s external data in 'weights.data' does not fit: offset 0 + length 48 is "
                         "past the end of the 40-byte file."));
  fs::remove(folder / "weights.data");
  fs::create_symlink("/etc/passwd", folder / "weights.data");
  const AuditResult linked = AuditPath(folder.string(), {});
  EXPECT_TRUE(
      HasFinding(linked, "onnx-external-data-missing",
                 "Tensor 'fc.weight' keeps its data in 'weights.data', which is a symbolic link (never followed)"))
      << Describe(linked);
  EXPECT_TRUE(FindingsOf(linked, "onnx-external-data-unread").empty());
  fs::remove(folder / "weights.data");
  EXPECT_TRUE(
      HasFinding(AuditPath(folder.string(), {}), "onnx-external-data-missing", "which is not a file of the folder"));
}

TEST_F(OnnxFiles, ALocationClimbingOutOfTheFolderFails) {
  for (const AuditResult& result : {Audit("escape.onnx"), AuditInFolder("escape.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-external-data-escape",
                           "The external data location of tensor 'fc.weight', '../secret.bin', has a '..' component"))
        << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
}

TEST_F(OnnxFiles, APyOpFailsAndACustomDomainIsAWarning) {
  for (const AuditResult& result : {Audit("pyop.onnx"), AuditInFolder("pyop.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-python-op", "Node 2 of graph 'main' is an ai.onnx.contrib PyOp"))
        << Describe(result);
  }
  for (const AuditResult& result : {Audit("custom.onnx"), AuditInFolder("custom.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-custom-domain", "Domain 'com.example' has node types 'MyGelu'"))
        << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass);
  }
}

TEST_F(OnnxFiles, NodesOutOfTopologicalOrderFailAsOnnxCheckerFailsThem) {
  const CommandResult checker =
      RunCommand("/usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]))' " +
                 ShellQuote((dir_->path() / "unordered.onnx").string()) + " 2>&1");
  EXPECT_NE(checker.exit_code, 0) << checker.output;
  for (const AuditResult& result : {Audit("unordered.onnx"), AuditInFolder("unordered.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-invalid",
                           "Node 0 ('Add') of graph 'then_branch' reads 'Y', which no initializer, graph input or "
                           "earlier node output defines."))
        << Describe(result);
  }
}

// Issue 46, fail-open 5: model-local function bodies are walked as graphs are (a PyOp there
// fails), and a local function no longer silences its domain: a node of that domain that no
// function defines is still a custom-domain warning. A standard body stays quiet.
TEST_F(OnnxFiles, FunctionBodiesAreWalkedAndDomainsJudgedPerNode) {
  for (const AuditResult& result : {Audit("function_pyop.onnx"), AuditInFolder("function_pyop.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-python-op",
                           "Node 0 of function 'Wrapped' is an ai.onnx.contrib PyOp: onnxruntime-extensions runs a "
                           "Python function for it when the model runs."))
        << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
  const AuditResult domain = Audit("function_domain.onnx");
  const auto custom = FindingsOf(domain, "onnx-custom-domain");
  ASSERT_EQ(custom.size(), 1U) << Describe(domain);
  EXPECT_NE(custom[0]->message.find("Domain 'com.local' has node types 'Other': no local function defines it"),
            std::string::npos)
      << custom[0]->message;
  const AuditResult clean = Audit("function_clean.onnx");
  EXPECT_TRUE(clean.findings.empty()) << Describe(clean);
}

// Issue 46, fail-open 7: a Constant's sparse_value keeps its values in external data like any
// tensor: the location is checked (alone and in a folder), as for initializers.
TEST_F(OnnxFiles, ASparseConstantsExternalDataIsChecked) {
  for (const AuditResult& result : {Audit("sparse_constant.onnx"), AuditInFolder("sparse_constant.onnx")}) {
    EXPECT_TRUE(HasFinding(result, "onnx-external-data-escape",
                           "The external data location of tensor 'Constant#0.sparse_value', '../outside/secret.bin', "
                           "has a '..' component: loading the model reads a file outside its folder."))
        << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
}

// A location that onnx 1.12 (which strips leading dots and slashes) and later loaders read as
// two files is refused; external data that also carries raw_data is refused as onnx's checker
// refuses it. The data onnx.save_model writes ("weights.data") stays quiet (above).
TEST_F(OnnxFiles, LocationsLoadersReadDifferentlyAndDoubleDataFail) {
  EXPECT_TRUE(HasFinding(Audit("dotted.onnx"), "onnx-external-data-escape",
                         "The external data location of tensor 'fc.weight', '.weights.data', means 'weights.data' to "
                         "onnx 1.12 (which strips leading '.' and '/') and '.weights.data' to later versions and "
                         "runtimes: loaders read different files."));
  EXPECT_TRUE(HasFinding(Audit("both.onnx"), "onnx-tensor-invalid",
                         "Tensor 'fc.weight' keeps its data externally and also carries data of its own: onnx's "
                         "checker refuses it, and loaders disagree on which data they use."));
}

// Issue 46, fail-open 4: a folder's model.keras that is ONNX by its first bytes and a Keras zip
// (config importing from os) by its end. The polyglot check runs for kinds with no container
// of their own, and a name is compared with the content inside a folder as for a lone file.
TEST_F(OnnxFiles, AnOnnxModelThatIsAlsoAKerasZipIsRefused) {
  const fs::path folder = dir_->path() / "folder-keras-polyglot";
  fs::create_directories(folder);
  WriteText(folder / "config.json", R"({"model_type": "bert"})");
  fs::copy_file(dir_->path() / "keras_polyglot.onnx", folder / "model.keras", fs::copy_options::overwrite_existing);
  const AuditResult in_folder = AuditPath(folder.string(), {});
  const auto polyglot = FindingsOf(in_folder, "input-polyglot");
  ASSERT_EQ(polyglot.size(), 1U) << Describe(in_folder);
  EXPECT_NE(polyglot[0]->message.find("'model.keras' is an ONNX model and also a zip archive: an end record at byte"),
            std::string::npos)
      << polyglot[0]->message;
  EXPECT_EQ(polyglot[0]->location.file, "model.keras");
  EXPECT_TRUE(
      HasFinding(in_folder, "input-name-mismatch", "'model.keras' is named as a Keras v3 archive but is an ONNX model"))
      << Describe(in_folder);
  EXPECT_EQ(VerdictOf(in_folder, Severity::kError), Verdict::kFail);
  // Alone, under either name.
  EXPECT_TRUE(HasFinding(Audit("keras_polyglot.onnx"), "input-polyglot", "is an ONNX model and also a zip archive"));
  // Near miss: the same model without the zip, named model.onnx in a folder, passes (above).
}

}  // namespace
}  // namespace ckpt::testing
