// The joblib module and its rules (formats.md section 3) on files Debian's python3-joblib
// writes (tests/joblib/make_joblib.py): a dict of arrays passes with its exact tensor list,
// uncompressed and through each of joblib's five codecs; a scikit-learn-shaped estimator
// (built from the globals and state the real classes write: python3-sklearn cannot be
// installed beside Boost 1.81) is a warning with its arrays listed by attribute; a global
// stored as state, a class outside the table, an os.system payload (plain and inside an object
// array) fail, and the payload never runs; a 10 GB bz2 bomb in 11 KB stops in well under a
// second. Each also inside a model folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class JoblibFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("joblib", dir_->path());
    marker_ = made.made_in / "payload-ran";  // the path the payloads would touch
    if (!made.ok) missing_ = "make_joblib.py failed (python3-joblib, python3-numpy): " + made.problem;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static AuditResult Audit(const std::string& name) { return AuditPath((dir_->path() / name).string(), {}); }
  // `name` copied into a model folder beside model.safetensors, audited as the folder.
  static AuditResult AuditInFolder(const std::string& name) {
    const fs::path folder = dir_->path() / ("folder-" + name);
    WriteFiles(ModelFolderSpec{}.Build(), folder);
    fs::copy_file(dir_->path() / name, folder / name, fs::copy_options::overwrite_existing);
    return AuditPath(folder.string(), {});
  }
  static inline TempDir* dir_ = nullptr;
  static inline fs::path marker_;
  static inline std::string missing_;
};

std::vector<std::string> TensorLine(const AuditResult& result) {
  std::vector<std::string> out;
  for (const WeightFile& wf : result.artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      std::string line = t.name + " " + t.dtype + " [";
      for (std::size_t i = 0; i < t.shape.size(); ++i) line += (i > 0 ? "," : "") + std::to_string(t.shape[i]);
      out.push_back(line + "]");
    }
  }
  return out;
}

TEST_F(JoblibFiles, ADictOfArraysPassesWithItsTensorsInEveryCodec) {
  const std::vector<std::string> expected = {"w F32 [2,3]", "b I64 [3]", "f F64 [2,2]"};
  for (const std::string name :
       {"arrays.joblib", "arrays.zlib", "arrays.gzip", "arrays.bz2", "arrays.xz", "arrays.lzma"}) {
    const AuditResult result = Audit(name);
    EXPECT_EQ(InputKindName(result.artifact.kind), "joblib") << name;
    EXPECT_EQ(TensorLine(result), expected) << name;
    ASSERT_EQ(result.findings.size(), 1U) << name << Describe(result);
    EXPECT_TRUE(HasFinding(result, "pickle-format-note", "is a joblib file: pickle-based format")) << name;
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass) << name;
  }
  // Uncompressed, the C-order arrays are located in the file (hashed as tensors).
  const AuditResult plain = Audit("arrays.joblib");
  ASSERT_FALSE(plain.artifact.weights.empty());
  const StoredTensor* w = plain.artifact.weights.front().FindTensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->data_length, 24U);
  EXPECT_EQ(w->data_offset % 16, 0U);  // joblib aligns array data to 16 bytes
}

TEST_F(JoblibFiles, AnEstimatorIsAWarningWithItsArraysListedByAttribute) {
  const AuditResult result = Audit("estimator.joblib");
  EXPECT_EQ(TensorLine(result), (std::vector<std::string>{"coef_ F64 [1,4]", "intercept_ F64 [1]", "classes_ I64 [2]",
                                                          "tree_.nodes OTHER [1]", "tree_.values F64 [1,1,2]"}));
  EXPECT_TRUE(HasFinding(result, "joblib-estimator",
                         "makes a sklearn.linear_model._logistic.LogisticRegression: loading runs scikit-learn's "
                         "__setstate__ for sklearn.linear_model._logistic.LogisticRegression; loading needs "
                         "scikit-learn and trusts its publisher; prefer skops."))
      << Describe(result);
  EXPECT_TRUE(HasFinding(result, "joblib-estimator", "makes a sklearn.tree._tree.Tree")) << Describe(result);
  for (const Finding& f : result.findings) EXPECT_NE(f.severity(), Severity::kError) << f.rule->id << ": " << f.message;
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass);
  EXPECT_EQ(VerdictOf(result, Severity::kWarning), Verdict::kFail);
}

TEST_F(JoblibFiles, AGlobalStoredAsStateFailsClosed) {
  const AuditResult result = Audit("function.joblib");
  EXPECT_EQ(InputKindName(result.artifact.kind), "joblib");
  EXPECT_TRUE(HasFinding(result, "pickle-global-unsafe", "stores posix.getcwd (imported at byte ")) << Describe(result);
  EXPECT_TRUE(HasFinding(result, "pickle-global-unsafe", "as a value of an object's state")) << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST_F(JoblibFiles, ASklearnClassOutsideTheTableFails) {
  const AuditResult result = Audit("unknown_class.joblib");
  EXPECT_TRUE(HasFinding(result, "pickle-global-unsafe", "imports sklearn.utils._testing.MinimalClassifier"))
      << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST_F(JoblibFiles, PayloadsFailAndNeverRun) {
  for (const std::string name : {"payload.joblib", "object_payload.joblib"}) {
    const AuditResult result = Audit(name);
    EXPECT_EQ(InputKindName(result.artifact.kind), "joblib") << name;
    EXPECT_TRUE(HasFinding(result, "pickle-global-unsafe", "imports posix.system")) << name << Describe(result);
    EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "calls posix.system('touch ")) << name << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail) << name;
    const AuditResult folder = AuditInFolder(name);
    EXPECT_TRUE(HasFinding(folder, "pickle-call-unsafe", "calls posix.system('touch ")) << name << Describe(folder);
    EXPECT_EQ(VerdictOf(folder, Severity::kError), Verdict::kFail) << name;
  }
  EXPECT_FALSE(fs::exists(marker_)) << "a payload ran";
}

TEST_F(JoblibFiles, ATenGigabyteBombStopsFastAndSmall) {
  EXPECT_LT(fs::file_size(dir_->path() / "bomb.bz2"), 12'000U);
  const AuditResult result = Audit("bomb.bz2");  // how fast it stops: Perf.AJoblibBombStopsAtItsBound
  EXPECT_TRUE(HasFinding(result, "joblib-decompression-bomb",
                         "The bz2 stream decompresses past its bound: more than 67108864 bytes out"))
      << Describe(result);
  const AuditResult folder = AuditInFolder("bomb.bz2");
  EXPECT_TRUE(HasFinding(folder, "joblib-decompression-bomb", "decompresses past its bound")) << Describe(folder);
}

TEST_F(JoblibFiles, ACleanJoblibInAModelFolderIsAPickleFamilyFile) {
  const AuditResult result = AuditInFolder("arrays.xz");
  EXPECT_TRUE(HasFinding(result, "pickle-format-note", "'arrays.xz' is a joblib file (xz-compressed pickle)"))
      << Describe(result);
  EXPECT_EQ(FindingsOf(result, "pickle-format-note").size(), 1U) << Describe(result);  // noted once
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass) << Describe(result);
  // Issue 46: its arrays join the folder's tensor list, each named with its file.
  std::vector<std::string> listed;
  for (const WeightFile* wf : result.artifact.ListedWeightFiles()) {
    for (const StoredTensor& t : wf->tensors) listed.push_back(wf->name + ": " + t.name + " " + t.dtype);
  }
  for (const std::string expected : {"arrays.xz: w F32", "arrays.xz: b I64", "arrays.xz: f F64"}) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), expected), listed.end()) << expected;
  }
}

// Issue 46, fail-open 1: numpy ignores a fixed-size dtype's size field, so joblib reads 8 bytes a
// value of an f8 array whatever the state says; the audit reads what joblib reads, and the call
// in the bytes the field would skip is found. The field equal to the code's size stays quiet.
TEST_F(JoblibFiles, ADtypeSizeFieldNumpyIgnoresHidesNothing) {
  const AuditResult result = Audit("dtype_size.joblib");
  EXPECT_TRUE(HasFinding(result, "joblib-array-invalid",
                         "builds a joblib NumpyArrayWrapper whose dtype '<f8' has the size field 52 in its state: "
                         "numpy ignores it and reads 8-byte items, so the bytes after the array are not where the "
                         "field says."))
      << Describe(result);
  EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "calls posix.system('touch ")) << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  EXPECT_TRUE(HasFinding(AuditInFolder("dtype_size.joblib"), "pickle-call-unsafe", "calls posix.system('touch "));
  const AuditResult same = Audit("dtype_size_same.joblib");
  EXPECT_EQ(TensorLine(same), std::vector<std::string>{"w F64 [4]"});
  EXPECT_EQ(VerdictOf(same, Severity::kError), Verdict::kPass) << Describe(same);
  EXPECT_FALSE(fs::exists(marker_));
}

// Issue 46, fail-open 2: joblib reads an object array's pickle from its file, which the
// unpickler has read a whole frame ahead of: an array built inside a frame is refused, and the
// pickle after the frame (the one joblib runs) is analysed. joblib's own layout stays quiet.
TEST_F(JoblibFiles, AnObjectArrayInsideAFrameIsReadWhereJoblibReadsIt) {
  const AuditResult result = Audit("frame_object.joblib");
  EXPECT_TRUE(HasFinding(result, "pickle-frame-invalid",
                         "builds a joblib object array inside its FRAME (up to byte 417): joblib's pickle.load reads "
                         "the array's pickle from byte 417, after the frame, not from byte 220."))
      << Describe(result);
  const auto calls = FindingsOf(result, "pickle-call-unsafe");
  ASSERT_EQ(calls.size(), 1U) << Describe(result);  // once: the pickle after the frame is read once
  EXPECT_NE(calls[0]->message.find("calls posix.system('touch "), std::string::npos) << calls[0]->message;
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  // A protocol-4 object array as joblib writes it (its frame committed first) passes.
  const AuditResult clean = Audit("arrays.joblib");
  EXPECT_TRUE(FindingsOf(clean, "pickle-frame-invalid").empty()) << Describe(clean);
  EXPECT_FALSE(fs::exists(marker_));
}

// Issue 46, fail-open 3: joblib's ZF format is still loaded by current joblib, with Python's
// own unpickler: it is a joblib file, decompressed and analysed, alone and in a folder.
TEST_F(JoblibFiles, TheOldZfFormatIsReadAndJudged) {
  for (const AuditResult& result : {Audit("payload.zf"), AuditInFolder("payload.zf")}) {
    EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "calls posix.system('touch ")) << Describe(result);
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
  const AuditResult clean = Audit("clean.zf");
  EXPECT_EQ(InputKindName(clean.artifact.kind), "joblib");
  ASSERT_EQ(clean.findings.size(), 1U) << Describe(clean);
  EXPECT_EQ(clean.findings[0].message,
            "This file is a joblib file: pickle-based format, prefer safetensors (loading it runs whatever it names).");
  EXPECT_EQ(VerdictOf(clean, Severity::kError), Verdict::kPass);
  EXPECT_TRUE(
      HasFinding(AuditInFolder("clean.zf"), "pickle-format-note",
                 "'clean.zf' is a joblib file (the ZF format of joblib before 0.9.3: a zlib-compressed pickle)"));
  EXPECT_FALSE(fs::exists(marker_));
}

}  // namespace
}  // namespace ckpt::testing
