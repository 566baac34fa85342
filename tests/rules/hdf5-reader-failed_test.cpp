// HDF5 and Keras (formats.md sections 5 and 6) on files Debian's h5py writes and on .keras zips
// laid out as Keras 3 writes them (tests/hdf5/make_hdf5.py): benign files pass with their exact
// dataset lists, alone and as a model folder's weights; links, external and virtual storage,
// plugin filters, Lambda layers, code layers and the safe_mode bypasses fail with the named rule,
// alone and in a folder, and no payload ever runs. The isolation is shown with a stand-in helper
// (CKPT_H5PROBE, tests/support/h5probe_fake.cpp): a crash, a hang (killed at 60 s), CPU and memory
// limits, a malformed or oversized answer each give hdf5-reader-failed and exit 1; the stand-in
// also checks from inside that its environment is empty, its limits pinned and its descriptors
// closed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/audit.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class Hdf5Files : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("hdf5", dir_->path());
    marker_ = made.made_in / "payload-ran";  // the path the payloads would touch
    if (!made.ok) missing_ = "make_hdf5.py failed (python3-h5py): " + made.problem;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  void TearDown() override { EXPECT_FALSE(fs::exists(Marker())) << "a payload ran"; }
  static fs::path Marker() { return marker_; }
  static inline fs::path marker_;
  static AuditResult Audit(const std::string& name) { return AuditPath((dir_->path() / name).string(), {}); }
  // The file as `as_name` in a model folder beside a README.
  static AuditResult AuditInFolder(const std::string& name, const std::string& as_name) {
    const fs::path folder = dir_->path() / ("folder-" + name);
    fs::create_directories(folder);
    WriteText(folder / "README.md", "# a model\n");
    fs::copy_file(dir_->path() / name, folder / as_name, fs::copy_options::overwrite_existing);
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

std::string FactsOf(const AuditResult& result) {
  if (result.artifact.weights.empty() || result.artifact.weights.front().format_facts == nullptr) return "";
  boost::json::object fields;
  result.artifact.weights.front().format_facts->Describe(fields);
  return boost::json::serialize(fields);
}

TEST_F(Hdf5Files, AKeras2ModelH5PassesWithItsWeightsAndVersion) {
  const AuditResult alone = Audit("keras2_model.h5");
  EXPECT_EQ(InputKindName(alone.artifact.kind), "hdf5");
  EXPECT_TRUE(alone.findings.empty()) << Describe(alone);
  const std::vector<std::string> weights = {"model_weights/dense/dense/bias:0 F32 [2]",
                                            "model_weights/dense/dense/kernel:0 F32 [3,2]"};
  EXPECT_EQ(TensorLines(alone), weights);
  EXPECT_EQ(FactsOf(alone), R"({"keras_version":"2.13.1"})");
  const AuditResult folder = AuditInFolder("keras2_model.h5", "model.h5");
  EXPECT_TRUE(folder.findings.empty()) << Describe(folder);
  EXPECT_EQ(TensorLines(folder), weights);
}

TEST_F(Hdf5Files, TransformersTfModelH5AndAUserBlockPass) {
  const AuditResult tf = AuditInFolder("tf_model.h5", "tf_model.h5");
  EXPECT_TRUE(tf.findings.empty()) << Describe(tf);
  EXPECT_EQ(TensorLines(tf), (std::vector<std::string>{
                                 "tf_bert_model/tf_bert_model/bert/embeddings/LayerNorm/gamma:0 F32 [4]",
                                 "tf_bert_model/tf_bert_model/bert/embeddings/word_embeddings/weight:0 F32 [10,4]"}));
  const AuditResult block = Audit("userblock.h5");
  EXPECT_TRUE(block.findings.empty()) << Describe(block);
  EXPECT_EQ(TensorLines(block),
            (std::vector<std::string>{"a I64 [2,3]", "h F16 [2]", "mask BOOL [4]", "name OTHER []", "pair OTHER [2]"}));
}

TEST_F(Hdf5Files, WhatReachesOutsideTheFileFailsAloneAndInAFolder) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"external_link.h5", "hdf5-external-link", "links 'passwd' to object '/' of another file, '/etc/passwd'"},
      {"external_storage.h5", "hdf5-external-storage", "dataset 'w' keeps its data in 1 external file(s)"},
      {"virtual.h5", "hdf5-virtual-dataset", "dataset 'v' is a virtual dataset"},
      {"plugin_filter.h5", "hdf5-filter-unsupported", "dataset 'w' is filtered by filter 32001"},
      {"lambda_model.h5", "keras-lambda", "Lambda layer in the root attribute model_config at 'config.layers[2]'"},
  };
  for (const auto& [name, rule, text] : cases) {
    EXPECT_TRUE(HasFinding(Audit(name), rule, text)) << name;
    const AuditResult folder = AuditInFolder(name, "model.h5");
    EXPECT_TRUE(HasFinding(folder, rule, text)) << name;
    EXPECT_GT(ErrorCount(folder), 0U) << name;
  }
}

TEST_F(Hdf5Files, KerasArchivesAsKeras3WritesThemPass) {
  const std::vector<std::string> weights = {"layers/dense/vars/0 F32 [3,2]", "layers/dense/vars/1 F32 [2]",
                                            "optimizer/vars/0 I64 []", "optimizer/vars/1 F32 []"};
  for (const std::string name : {"dense.keras", "functional.keras"}) {
    const AuditResult alone = Audit(name);
    EXPECT_EQ(InputKindName(alone.artifact.kind), "keras") << name;
    EXPECT_TRUE(alone.findings.empty()) << Describe(alone);
    EXPECT_EQ(TensorLines(alone), weights) << name;
    EXPECT_EQ(FactsOf(alone), R"({"keras_version":"3.6.0"})");
    const AuditResult folder = AuditInFolder(name, "model.keras");
    EXPECT_TRUE(folder.findings.empty()) << Describe(folder);
    EXPECT_EQ(TensorLines(folder), weights) << name;
  }
  const AuditResult npz = Audit("npz_weights.keras");
  EXPECT_TRUE(npz.findings.empty()) << Describe(npz);
  EXPECT_EQ(TensorLines(npz), (std::vector<std::string>{"kernel F32 [3,2]", "bias F32 [2]"}));
}

TEST_F(Hdf5Files, HostileKerasArchivesFailAloneAndInAFolder) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"cve_2025_1550.keras", "keras-module-unsafe", "names module 'os', outside Keras"},
      {"cve_2025_8747.keras", "keras-function-unsafe", "function 'get_file' of module 'keras.utils'"},
      {"lambda.keras", "keras-lambda", "marshalled Python lambda (__lambda__)"},
      {"tfsm.keras", "keras-code-layer", "TFSMLayer layer in config.json at 'config.layers[2]'"},
  };
  for (const auto& [name, rule, text] : cases) {
    EXPECT_TRUE(HasFinding(Audit(name), rule, text)) << name;
    EXPECT_TRUE(HasFinding(AuditInFolder(name, "model.keras"), rule, text)) << name;
  }
}

TEST_F(Hdf5Files, AKerasArchiveNamedH5AndAnHdf5FileNamedKerasAreNameMismatches) {
  fs::copy_file(dir_->path() / "dense.keras", dir_->path() / "dense-as.h5", fs::copy_options::overwrite_existing);
  fs::copy_file(dir_->path() / "keras2_model.h5", dir_->path() / "h5-as.keras", fs::copy_options::overwrite_existing);
  EXPECT_TRUE(HasFinding(Audit("dense-as.h5"), "input-name-mismatch", "HDF5"));
  EXPECT_TRUE(HasFinding(Audit("h5-as.keras"), "input-name-mismatch", "Keras"));
}

// The stand-in helper, through the ckpt-audit binary: `word` after the HDF5 signature says how
// it misbehaves. Returns the exit code, the text report and the seconds the audit took.
struct HelperRun {
  int exit_code = 0;
  std::string output;
  double seconds = 0;
};
HelperRun RunWithStandIn(const std::string& word, const std::string& extra_env = "", const std::string& options = "") {
  const TempDir dir;
  const fs::path input = dir.path() / "model.h5";
  std::ofstream(input, std::ios::binary) << std::string("\x89HDF\r\n\x1a\n", 8) << word << std::string(64, '\0');
  const auto start = std::chrono::steady_clock::now();
  const CommandResult run =
      RunCommand("CKPT_H5PROBE=" + ShellQuote(CKPT_H5PROBE_FAKE) + " " + extra_env + " " + ShellQuote(CKPT_AUDIT_BIN) +
                 " " + options + " " + ShellQuote(input.string()) + " 2>&1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {run.exit_code, run.output, seconds};
}

// The limits lowered by the options (they only lower: the pinned 60 s and 20 s are the most),
// so a hang waits 2 s and a spin burns 1 s, not a minute and 20 s.
TEST(Hdf5Isolation, AHelperThatHangsIsKilledAtTheWallClockLimit) {
  const HelperRun run = RunWithStandIn("hang", "", "--hdf5-wall-limit 2");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("error: The isolated HDF5 reader (ckpt-h5probe) did not answer within its wall-clock "
                            "limit of 2 s and was killed on the file: it is not read and does not pass. "
                            "[hdf5-reader-failed CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.output;
  EXPECT_GE(run.seconds, 2.0);  // the deadline, never earlier (later is the machine's business)
}

TEST(Hdf5Isolation, AHelperThatSpinsStopsAtItsCpuLimit) {
  const HelperRun run = RunWithStandIn("spin", "", "--hdf5-cpu-limit 1 --hdf5-wall-limit 30");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  // The CPU limit, not the wall clock, stopped it.
  EXPECT_NE(run.output.find("was killed by signal SIGXCPU (its CPU-time limit of 1 s)"), std::string::npos)
      << run.output;
}

TEST(Hdf5Isolation, TheTimeLimitsOnlyGoDown) {
  for (const std::string options : {"--hdf5-cpu-limit 21", "--hdf5-wall-limit 61", "--hdf5-cpu-limit 0"}) {
    const HelperRun run = RunWithStandIn("sandbox", "", options);
    EXPECT_EQ(run.exit_code, 2) << options << ": " << run.output;
    EXPECT_NE(run.output.find(options.substr(0, options.find(' ')) + " must be between 1 and "), std::string::npos)
        << run.output;
  }
}

TEST(Hdf5Isolation, CrashesLimitsAndBadAnswersAreFindings) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"crash", "was killed by signal SIGSEGV (a memory fault)"},
      {"oom",
       "was killed by signal SIGABRT (it aborted, as it does when its 2 GiB address-space limit refuses memory)"},
      {"garbage", "gave a malformed answer (not strict JSON"},
      {"flood", "answered more than its bound of 64 MiB and was killed"},
      {"exit3", "exited with status 3 (its input ended before the file's bytes did)"},
  };
  for (const auto& [word, text] : cases) {
    const HelperRun run = RunWithStandIn(word);
    EXPECT_EQ(run.exit_code, 1) << word << ": " << run.output;
    EXPECT_NE(run.output.find("[hdf5-reader-failed CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find(text), std::string::npos) << word << ": " << run.output;
  }
}

TEST(Hdf5Isolation, TheHelperGetsNoEnvironmentNoDescriptorsAndThePinnedLimits) {
  // The stand-in answers only when its environment is empty (HDF5_PLUGIN_PATH does not reach
  // it), descriptors 3..63 are closed and the audit set RLIMIT_CPU, FSIZE, NOFILE, CORE, NPROC
  // and AS as pinned; it exits 7, 8 or 10 otherwise.
  const HelperRun run = RunWithStandIn("sandbox", "HDF5_PLUGIN_PATH=/tmp HDF5_DRIVER=sec2");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
}

// Issue 51: a missing helper is the tool's installation at fault, not the model's: a tool
// error (exit 2) that says how to fix it, never a pass and never a finding against the file.
TEST(Hdf5Isolation, AMissingHelperIsAToolErrorNotAPass) {
  const TempDir dir;
  const fs::path input = dir.path() / "model.h5";
  std::ofstream(input, std::ios::binary) << std::string("\x89HDF\r\n\x1a\n", 8) << std::string(64, '\0');
  const CommandResult run = RunCommand("CKPT_H5PROBE=/nonexistent/ckpt-h5probe " + ShellQuote(CKPT_AUDIT_BIN) + " " +
                                       ShellQuote(input.string()) + " 2>&1");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("tool error: cannot read " + input.string() +
                            ": the isolated HDF5 reader ckpt-h5probe could not be started (No such file or "
                            "directory): install it beside the tools, or name it with CKPT_H5PROBE"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("hdf5-reader-failed"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("PASS"), std::string::npos) << run.output;
}

// Issue 46 item 4: the real helper filters its own system calls (seccomp, no new privileges)
// once the file is in memory. Its test build (ckpt-h5probe-hooked) makes the call an image asks
// for after the filter is in place: each one reading never needs kills it with SIGSYS, whoever
// runs it (the CI runs as root, where RLIMIT_NPROC does not bind); an open for reading fails
// with ENOENT (exit 21). The same build reads a real Keras HDF5 file as the shipped one does.
int RunHooked(const std::string& call, const fs::path& dir) {
  const fs::path image = dir / ("try-" + call + ".h5");
  std::ofstream(image, std::ios::binary) << std::string("\x89HDF\r\n\x1a\n", 8) << "try-" << call
                                         << std::string(64, '\0');
  const CommandResult run = RunCommand(ShellQuote(CKPT_H5PROBE_HOOKED) + " " + std::to_string(fs::file_size(image)) +
                                       " < " + ShellQuote(image.string()) + " > /dev/null 2>&1; echo $?");
  return std::stoi(run.output);
}

TEST_F(Hdf5Files, TheHelperRefusesEverySystemCallReadingNeverNeeds) {
  const TempDir dir;
  std::cout << "helper run as uid " << ::geteuid() << "\n";
  for (const std::string call :
       {"open-write", "socket", "execve", "fork", "clone", "write-other", "kill-other", "mmap-file"}) {
    EXPECT_EQ(RunHooked(call, dir.path()), 128 + SIGSYS) << call << " was not refused by the filter";
  }
  EXPECT_FALSE(fs::exists("/tmp/ckpt-h5probe-hook"));
  EXPECT_EQ(RunHooked("open-read", dir.path()), 21) << "a read-only open must fail with ENOENT";
  EXPECT_EQ(RunHooked("nothing", dir.path()), 22);  // near miss: the hook itself survives an allowed path
  // The filter leaves libhdf5 what it needs: a real file read by the hooked build answers as
  // the shipped helper does.
  const fs::path real = dir_->path() / "keras2_model.h5";
  const std::string size = std::to_string(fs::file_size(real));
  const CommandResult shipped = RunCommand(ShellQuote(fs::path(CKPT_AUDIT_BIN).parent_path() / "ckpt-h5probe") + " " +
                                           size + " < " + ShellQuote(real.string()) + " | tail -c +5");
  const CommandResult hooked =
      RunCommand(ShellQuote(CKPT_H5PROBE_HOOKED) + " " + size + " < " + ShellQuote(real.string()) + " | tail -c +5");
  EXPECT_NE(shipped.output.find(R"("status":"ok")"), std::string::npos) << shipped.output;
  EXPECT_EQ(hooked.output, shipped.output);
}

// Through the audit, a helper the filter killed is hdf5-reader-failed naming the filter.
TEST(Hdf5Isolation, AHelperKilledByItsFilterIsAFinding) {
  const TempDir dir;
  const fs::path input = dir.path() / "model.h5";
  std::ofstream(input, std::ios::binary) << std::string("\x89HDF\r\n\x1a\n", 8) << "try-socket"
                                         << std::string(64, '\0');
  const CommandResult run = RunCommand("CKPT_H5PROBE=" + ShellQuote(CKPT_H5PROBE_HOOKED) + " " +
                                       ShellQuote(CKPT_AUDIT_BIN) + " " + ShellQuote(input.string()) + " 2>&1");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("was killed by signal SIGSYS (its seccomp filter: the file made it attempt a system call "
                            "reading never needs)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("[hdf5-reader-failed CHECKPOINT_INTEGRITY]"), std::string::npos) << run.output;
}

// libhdf5's core driver tries to open the image's label as a file in the working directory: a
// file of that name there changed the answer ("file already exists"). The filter makes every
// open for reading fail, so the file's own bytes are what is read.
TEST_F(Hdf5Files, AFileNamedLikeTheImageInTheWorkingDirectoryChangesNothing) {
  const TempDir cwd;
  fs::copy_file(dir_->path() / "keras2_model.h5", cwd.path() / "ckpt-h5probe-image");
  const CommandResult run = RunCommand("cd " + ShellQuote(cwd.path().string()) + " && " + ShellQuote(CKPT_AUDIT_BIN) +
                                       " " + ShellQuote((dir_->path() / "keras2_model.h5").string()) + " 2>&1");
  EXPECT_EQ(run.output.find("hdf5-reader-failed"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("1 passed"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace ckpt::testing
