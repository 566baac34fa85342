// Real checkpoints written at test time by Debian's python3-torch (tests/torch/make_checkpoints.py):
// state dicts in the zip and legacy formats and with pickle_protocol=4, every dtype torch
// and safetensors share, scalars, empty tensors, views of one storage, tied weights and a
// training checkpoint with AdamW state. Each passes, and its tensor list equals what torch
// reports for the object saved (name, dtype, shape). A whole module fails, naming its class.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/audit.h"
#include "engine/diff_run.h"
#include "lib/hashing/sha256.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class TorchCheckpoints : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("torch-checkpoints", dir_->path());
    if (!made.ok) {
      missing_ = made.missing_module
                     ? "no python3 with torch (scripts/install-deps --test installs python3-torch): " + made.problem
                     : made.problem;
      return;
    }
    std::ifstream in(dir_->path() / "expected.json");
    std::stringstream text;
    text << in.rdbuf();
    expected_ = new boost::json::value(boost::json::parse(text.str()));
  }
  static void TearDownTestSuite() {
    delete expected_;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(missing_.empty()) << missing_; }

  static inline TempDir* dir_ = nullptr;
  static inline boost::json::value* expected_ = nullptr;
  static inline std::string missing_;
};

// The audit's tensor list in the shape of expected.json. A tensor whose bytes the audit
// located (contiguous) gets the SHA-256 of that region; the others take torch's digest, so
// only located regions are compared.
boost::json::array TensorsOf(const AuditResult& result, const std::string& path, const boost::json::array& expected) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, std::string> torch_digest;
  for (const boost::json::value& e : expected) {
    torch_digest[std::string(e.at("name").as_string())] = std::string(e.at("sha256").as_string());
  }
  boost::json::array out;
  for (const WeightFile& wf : result.artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      boost::json::array shape;
      for (std::uint64_t d : t.shape) shape.push_back(d);
      std::string digest = torch_digest[t.name];
      if (t.data_length > 0 && t.data_offset + t.data_length <= bytes.size()) {
        Sha256 hash;
        hash.Update(std::string_view(bytes).substr(t.data_offset, t.data_length));
        digest = hash.FinalHex();
      }
      out.push_back({{"dtype", t.dtype}, {"name", t.name}, {"sha256", digest}, {"shape", shape}});
    }
  }
  std::sort(out.begin(), out.end(), [](const boost::json::value& a, const boost::json::value& b) {
    return a.at("name").as_string() < b.at("name").as_string();
  });
  return out;
}

TEST_F(TorchCheckpoints, EachPassesWithTheTensorsTorchReports) {
  const boost::json::object& files = expected_->at("files").as_object();
  ASSERT_GE(files.size(), 10U);
  for (const auto& [name, tensors] : files) {
    const std::string path = (dir_->path() / std::string(name)).string();
    const AuditResult result = AuditPath(path, AuditOptions{});
    SCOPED_TRACE(path);
    EXPECT_EQ(result.artifact.kind,
              std::string(name).find("legacy") != std::string::npos ? InputKind::kTorchLegacy : InputKind::kTorchZip);
    EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
    ASSERT_EQ(result.findings.size(), 1U) << Describe(result);
    EXPECT_EQ(result.findings[0].rule->id, "pickle-format-note");
    EXPECT_EQ(boost::json::serialize(TensorsOf(result, path, tensors.as_array())), boost::json::serialize(tensors))
        << name;
    // Every contiguous tensor with elements was located (and its bytes compared above).
    for (const StoredTensor& t : result.artifact.weights[0].tensors) {
      std::uint64_t numel = 1;
      for (std::uint64_t d : t.shape) numel *= d;
      const bool contiguous = t.name != "strided" && t.name != "transposed";
      if (numel > 0 && contiguous) {
        EXPECT_GT(t.data_length, 0U) << name << ": " << t.name;
      }
    }
    // Hashed as a file, with its data records' CRC-32s checked on the way.
    ASSERT_EQ(result.artifact.files.size(), 1U);
    EXPECT_TRUE(result.artifact.files[0].sha256.has_value());
  }
}

TEST_F(TorchCheckpoints, TiedWeightsAreListedUnderBothNames) {
  const AuditResult result = AuditPath((dir_->path() / "tied_zip.pt").string(), AuditOptions{});
  std::vector<std::string> names;
  for (const StoredTensor& t : result.artifact.weights[0].tensors) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"embed.weight", "head.weight"}));
  // One storage, one region.
  const auto& ts = result.artifact.weights[0].tensors;
  EXPECT_EQ(ts[0].data_offset, ts[1].data_offset);
}

TEST_F(TorchCheckpoints, AWholeModuleFailsNamingItsClasses) {
  const AuditResult result = AuditPath((dir_->path() / "whole_module.pt").string(), AuditOptions{});
  bool named = false;
  for (const Finding* f : FindingsOf(result, "pickle-global-unsafe")) {
    named |= f->message.find("imports torch.nn.modules.linear.Linear") != std::string::npos;
  }
  EXPECT_TRUE(named) << Describe(result);
  EXPECT_FALSE(FindingsOf(result, "pickle-call-unsafe").empty());
}

TEST_F(TorchCheckpoints, EveryByteFlippedInThePickleFails) {
  // Flipping any byte of data.pkl either fails the audit or leaves a valid stream; it never
  // crashes, and a payload is never silently accepted (the allowlist holds for any bytes).
  const fs::path source = dir_->path() / "state_dict_zip.pt";
  std::ifstream in(source, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t pkl = bytes.find(std::string("\x80\x02", 2));
  ASSERT_NE(pkl, std::string::npos);
  for (std::size_t i = pkl; i < pkl + 200 && i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    const AuditResult r = AuditInput({{"model.pt", flipped}}, InputForm::kFile, "");
    EXPECT_TRUE(r.tool_errors.empty()) << i << "\n" << Describe(r);
    bool error = false;
    for (const Finding& f : r.findings) error |= f.rule->severity == Severity::kError;
    // The CRC-32 of data.pkl catches every flip.
    EXPECT_TRUE(error) << i << "\n" << Describe(r);
  }
}

TEST_F(TorchCheckpoints, EveryTruncationOfARealZipAndLegacyFileFails) {
  for (const char* name : {"state_dict_zip.pt", "state_dict_legacy.pt"}) {
    std::ifstream in(dir_->path() / name, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 500U);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const AuditResult r = AuditInput({{"model.pt", bytes.substr(0, n)}}, InputForm::kFile, "");
      bool error = false;
      for (const Finding& f : r.findings) error |= f.rule->severity == Severity::kError;
      EXPECT_TRUE(error) << name << " cut at " << n << "\n" << Describe(r);
      EXPECT_TRUE(r.tool_errors.empty()) << name << " cut at " << n << "\n" << Describe(r);
    }
  }
}

TEST_F(TorchCheckpoints, DiffComparesLocatedTensorsAcrossContainers) {
  // The same views saved in the zip and the legacy format: every located tensor is bit for
  // bit the same; the non-contiguous views have no single region and are not compared.
  const DiffRun run =
      RunDiff((dir_->path() / "views_zip.pt").string(), (dir_->path() / "views_legacy.pt").string(), DiffOptions{});
  std::map<std::string, TensorStatus> status;
  for (const TensorDiff& t : run.tensors) status[t.name] = t.status;
  EXPECT_EQ(status.at("whole"), TensorStatus::kUnchanged);
  EXPECT_EQ(status.at("slice"), TensorStatus::kUnchanged);
  EXPECT_EQ(status.at("row"), TensorStatus::kUnchanged);
  EXPECT_EQ(status.at("strided"), TensorStatus::kUnreadable);
  EXPECT_EQ(status.at("transposed"), TensorStatus::kUnreadable);
  // Two training checkpoints of different models: their optimizer steps differ.
  const DiffRun training = RunDiff((dir_->path() / "training_zip.pt").string(),
                                   (dir_->path() / "state_dict_zip.pt").string(), DiffOptions{});
  std::size_t removed = 0;
  for (const TensorDiff& t : training.tensors) removed += t.status == TensorStatus::kRemoved ? 1U : 0U;
  EXPECT_GT(removed, 0U);
}

// A torch zip big enough to be hashed by two threads taking turns (each CRC-32 piece cut
// on the thread that copied it, joined in order): a flipped byte in the middle of a record
// that spans several windows, and one in a small record after it, are each a
// zip-crc-mismatch naming its record; the intact file has none and keeps its SHA-256.
TEST_F(TorchCheckpoints, ADataRecordSpanningManyWindowsHasItsCrcChecked) {
  const fs::path folder = dir_->path() / "big-crc";
  const PythonMade made = MadeByPython("torch-big-crc", folder);
  ASSERT_TRUE(made.ok) << made.problem;
  const fs::path path = folder / "big_crc.pt";
  AuditOptions digests;
  digests.digest_files = true;
  const AuditResult intact = AuditPath(path.string(), digests);
  EXPECT_TRUE(FindingsOf(intact, "zip-crc-mismatch").empty());
  ASSERT_FALSE(intact.artifact.files.empty());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Sha256 sha;
  sha.Update(bytes);
  EXPECT_EQ(intact.artifact.files.front().sha256, sha.FinalHex());
  std::uint64_t big_at = 0;
  std::uint64_t small_at = 0;
  for (const WeightFile& wf : intact.artifact.weights) {
    for (const StoredTensor& t : wf.tensors) (t.name == "big" ? big_at : small_at) = t.data_offset;
  }
  ASSERT_GT(big_at, 0u);
  ASSERT_GT(small_at, 0u);
  bytes[big_at + (5u << 20)] = static_cast<char>(bytes[big_at + (5u << 20)] ^ 0x01);  // windows 2 and later
  bytes[small_at + 3] = static_cast<char>(bytes[small_at + 3] ^ 0x40);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const AuditResult flipped = AuditPath(path.string(), AuditOptions{});
  const auto crc = FindingsOf(flipped, "zip-crc-mismatch");
  ASSERT_EQ(crc.size(), 2u);
  std::set<std::string> members;
  for (const Finding* f : crc) {
    for (const char* m : {"data/0'", "data/1'"}) {
      if (f->message.find(m) != std::string::npos) members.insert(m);
    }
  }
  EXPECT_EQ(members.size(), 2u) << crc.front()->message;
}

// CPython's own pickler at every protocol: plain data passes, a __reduce__ payload fails
// naming posix.system (python3 alone, no torch).
TEST(PythonPickles, PlainDataOfEveryProtocolPassesAndPayloadsFail) {
  TempDir dir;
  const PythonMade made = MadeByPython("plain-pickles", dir.path());
  ASSERT_TRUE(made.ok) << made.problem;
  std::size_t plain = 0;
  std::size_t payloads = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    const AuditResult r = AuditPath(entry.path().string(), AuditOptions{});
    EXPECT_EQ(r.artifact.kind, InputKind::kPickle) << name;
    bool error = false;
    for (const Finding& f : r.findings) error |= f.rule->severity == Severity::kError;
    if (name.starts_with("plain-")) {
      ++plain;
      EXPECT_FALSE(error) << name << "\n" << Describe(r);
    } else {
      ++payloads;
      bool named = false;
      for (const Finding* f : FindingsOf(r, "pickle-call-unsafe")) {
        named |= f->message.find("calls posix.system('touch /tmp/ckpt-audit-never-run')") != std::string::npos;
      }
      EXPECT_TRUE(named) << name << "\n" << Describe(r);
    }
  }
  EXPECT_EQ(plain, 120U);
  EXPECT_EQ(payloads, 6U);
  EXPECT_FALSE(fs::exists("/tmp/ckpt-audit-never-run"));
}

}  // namespace
}  // namespace ckpt::testing
