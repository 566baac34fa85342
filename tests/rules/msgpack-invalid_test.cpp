// The msgpack module and its rules (formats.md section 8) on files Debian's python3-msgpack
// writes in flax.serialization's layout (tests/msgpack/make_msgpack.py; Debian has no flax):
// a state dict of arrays, a numpy scalar, a complex and a chunked array passes with its exact
// tensor list, alone and as a model folder's only weights; a timestamp, bytes after the map
// (msgpack.unpackb refuses them) and a key written twice (msgpack-python keeps the later) fail,
// alone and in a folder; a million nested lists and a map claiming 2^32 entries end at once.
#include <gtest/gtest.h>

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

class MsgpackFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("msgpack", dir_->path());
    if (!made.ok) {
      missing_ = "make_msgpack.py failed (python3-msgpack, python3-numpy): " + made.problem;
    } else {
      said_ = made.output;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static AuditResult Audit(const std::string& name) { return AuditPath((dir_->path() / name).string(), {}); }
  // `name` as flax_model.msgpack, the only weights of a model folder with its config.json.
  static AuditResult AuditInFolder(const std::string& name) {
    const fs::path folder = dir_->path() / ("folder-" + name);
    fs::create_directories(folder);
    WriteText(folder / "config.json", R"({"model_type": "bert"})");
    fs::copy_file(dir_->path() / name, folder / "flax_model.msgpack", fs::copy_options::overwrite_existing);
    return AuditPath(folder.string(), {});
  }
  static inline TempDir* dir_ = nullptr;
  static inline std::string missing_;
  static inline std::string said_;
};

std::vector<std::string> TensorLines(const std::vector<const WeightFile*>& files) {
  std::vector<std::string> out;
  for (const WeightFile* wf : files) {
    for (const StoredTensor& t : wf->tensors) {
      std::string line = t.name + " " + t.dtype + " [";
      for (std::size_t i = 0; i < t.shape.size(); ++i) line += (i > 0 ? "," : "") + std::to_string(t.shape[i]);
      out.push_back(line + "] " + wf->name);
    }
  }
  return out;
}

const std::vector<std::string> kFlaxTensors = {"params.Dense_0.kernel F32 [3,4] ", "params.Dense_0.bias F32 [4] ",
                                               "params.Embed_0.embedding F16 [5,8] ", "batch_stats.mean F64 [2] ",
                                               "step I32 [] "};

std::vector<std::string> InFile(const std::vector<std::string>& lines, const std::string& file) {
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const std::string& line : lines) out.push_back(line + file);
  return out;
}

TEST_F(MsgpackFiles, AFlaxStateDictPassesWithItsArraysListed) {
  const AuditResult result = Audit("flax_model.msgpack");
  EXPECT_EQ(InputKindName(result.artifact.kind), "msgpack");
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  EXPECT_EQ(TensorLines(result.artifact.ListedWeightFiles()), kFlaxTensors);  // the input file itself: no name
  // An unchunked array is located: its bytes are the bin inside its ext.
  const StoredTensor* kernel = result.artifact.weights.front().FindTensor("params.Dense_0.kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->data_length, 48U);
}

TEST_F(MsgpackFiles, AFolderWhoseOnlyWeightsAreMsgpackPassesWithItsTensorsListed) {
  const AuditResult result = AuditInFolder("flax_model.msgpack");
  EXPECT_EQ(InputKindName(result.artifact.kind), "model-folder");
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  EXPECT_EQ(TensorLines(result.artifact.ListedWeightFiles()), InFile(kFlaxTensors, "flax_model.msgpack"));
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass);
}

TEST_F(MsgpackFiles, ATimestampIsAnExtTypeFlaxNeverWrites) {
  for (const AuditResult& result : {Audit("timestamp.msgpack"), AuditInFolder("timestamp.msgpack")}) {
    const auto found = FindingsOf(result, "msgpack-ext-type");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_NE(found[0]->message.find("('saved') has type -1 (a msgpack timestamp): flax.serialization writes only "
                                     "types 1 (ndarray), 2 (complex) and 3 (numpy scalar)."),
              std::string::npos)
        << found[0]->message;
    EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  }
}

TEST_F(MsgpackFiles, BytesAfterTheMapAreRefusedAsMsgpackUnpackbRefusesThem) {
  EXPECT_NE(said_.find("trailing: ExtraData"), std::string::npos) << said_;
  for (const AuditResult& result : {Audit("trailing.msgpack"), AuditInFolder("trailing.msgpack")}) {
    const auto found = FindingsOf(result, "msgpack-trailing-data");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_NE(found[0]->message.find("2 bytes follow the msgpack object that ends at byte 417"), std::string::npos)
        << found[0]->message;
    EXPECT_EQ(found[0]->location.byte_offset, 417U);
  }
}

TEST_F(MsgpackFiles, AKeyWrittenTwiceIsRefusedAndMsgpackPythonTakesTheLater) {
  EXPECT_NE(said_.find("duplicate: w = 2"), std::string::npos) << said_;
  for (const AuditResult& result : {Audit("duplicate.msgpack"), AuditInFolder("duplicate.msgpack")}) {
    const auto found = FindingsOf(result, "msgpack-duplicate-key");
    ASSERT_EQ(found.size(), 1U) << Describe(result);
    EXPECT_EQ(found[0]->message,
              "Key 'w' appears again at byte 4 in the map at byte 0: msgpack-python keeps the last value of a key, "
              "another reader the first.");
  }
}

// Issue 46: arrays the size real Flax checkpoints hold. A skip past the reader's 64 KiB buffer
// made its next read wrap around (SIGSEGV on a 200x200 float32 kernel followed by more
// arrays), and a 65,535-byte bin was a false msgpack-invalid: both pass with every array listed.
TEST_F(MsgpackFiles, ArraysPastTheReadersBufferPass) {
  const std::vector<std::string> large = {"params.Dense_0.kernel F32 [200,200] ", "params.Dense_0.bias F32 [200] ",
                                          "params.Dense_1.kernel F32 [300,100] "};
  const AuditResult alone = Audit("large.msgpack");
  EXPECT_TRUE(alone.findings.empty()) << Describe(alone);
  EXPECT_EQ(TensorLines(alone.artifact.ListedWeightFiles()), large);
  const AuditResult folder = AuditInFolder("large.msgpack");
  EXPECT_EQ(VerdictOf(folder, Severity::kError), Verdict::kPass) << Describe(folder);
  EXPECT_EQ(TensorLines(folder.artifact.ListedWeightFiles()), InFile(large, "flax_model.msgpack"));
  const AuditResult long_bin = Audit("long_bin.msgpack");
  EXPECT_TRUE(FindingsOf(long_bin, "msgpack-invalid").empty()) << Describe(long_bin);
  EXPECT_EQ(VerdictOf(long_bin, Severity::kError), Verdict::kPass) << Describe(long_bin);
}

TEST(MsgpackBounds, AMillionNestedListsAndAHugeCountEndAtOnce) {
  TempDir dir;
  const fs::path deep = dir.path() / "deep.msgpack";
  WriteText(deep, std::string("\x81\xa1"
                              "a",
                              3) +
                      std::string(1'000'000, '\x91') + "\xc0");
  const fs::path counted = dir.path() / "counted.msgpack";
  WriteText(counted, std::string("\x81\xa1"
                                 "a"
                                 "\xdf\xff\xff\xff\xff\xa1"
                                 "b",
                                 10));
  // How fast they stop: Perf.DeepAndHugeMsgpackStopAtTheirHead.
  const AuditResult nested = AuditPath(deep.string(), {});
  const AuditResult huge = AuditPath(counted.string(), {});
  ASSERT_EQ(FindingsOf(nested, "msgpack-depth-exceeded").size(), 1U) << Describe(nested);
  EXPECT_EQ(FindingsOf(nested, "msgpack-depth-exceeded")[0]->location.byte_offset, 130U);
  EXPECT_TRUE(HasFinding(huge, "msgpack-invalid",
                         "The map at byte 3 counts 4294967295 entries but only 2 bytes follow: the file is truncated."))
      << Describe(huge);
}

}  // namespace
}  // namespace ckpt::testing
