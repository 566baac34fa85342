// Hostile inputs end in findings, quickly, without memory growing with claimed sizes:
// a 2^63 header length, truncation at every byte, overflowing shapes, 10,000-deep
// nesting, a 200 MB header.json (sparse file), lying lengths.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"

namespace ckpt::testing {
namespace {

// Peak resident set size in KiB (VmHWM), after resetting the peak where the kernel allows.
long PeakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Audits `dir`, asserting it ends in findings (never a pass, never a tool error) with a
// bounded peak RSS increase. (How long it takes is checked under the perf label: a
// wall-clock bound in a functional test fails on a busy machine.)
AuditResult AuditHostile(const std::filesystem::path& dir, const std::string& what) {
  ResetPeakRss();
  const long rss_before = PeakRssKiB();
  AuditResult result = AuditPath(dir.string(), AuditOptions{});
  const long growth_kib = PeakRssKiB() - rss_before;
  EXPECT_LT(growth_kib, 32 * 1024) << what << ": peak RSS grew by " << growth_kib << " KiB";
  EXPECT_FALSE(result.findings.empty()) << what << " passed silently";
  EXPECT_TRUE(result.tool_errors.empty()) << what << ":\n" << Describe(result);
  return result;
}

Files Vector(const std::string& name) { return ReadFiles("fixtures/vectors/" + name); }

std::string LengthPrefix(std::uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
  return out;
}

TEST(HostileInput, HeaderLength2To63) {
  TempDir dir;
  Files files = Vector("v1-single");
  files["weights.safetensors"] = LengthPrefix(std::uint64_t{1} << 63) + "{}";
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "2^63 header length");
  ASSERT_EQ(FindingsOf(result, "safetensors-header-too-large").size(), 1u) << Describe(result);
  EXPECT_NE(FindingsOf(result, "safetensors-header-too-large")[0]->message.find("9223372036854775808"),
            std::string::npos);
}

TEST(HostileInput, HeaderLengthAtTheCapButFileTiny) {
  TempDir dir;
  Files files = Vector("v1-single");
  files["weights.safetensors"] = LengthPrefix(100'000'000) + "{}";
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "lying header length");
  EXPECT_EQ(FindingsOf(result, "safetensors-header-past-end").size(), 1u) << Describe(result);
}

TEST(HostileInput, WeightsTruncatedAtEveryByte) {
  const Files clean = Vector("v1-single");
  const std::string& bytes = clean.at("weights.safetensors");
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Files files = clean;
    files["weights.safetensors"] = bytes.substr(0, cut);
    AuditResult result = AuditFiles(files);
    bool integrity = false;
    for (const Finding& f : result.findings) integrity |= f.rule->code == Code::kCheckpointIntegrity;
    EXPECT_TRUE(integrity) << "cut at " << cut << ":\n" << Describe(result);
    EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
  }
}

TEST(HostileInput, HeaderJsonTruncatedAtEveryByte) {
  const Files clean = Vector("v1-single");
  const std::string& text = clean.at("header.json");
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    Files files = clean;
    files["header.json"] = text.substr(0, cut);
    AuditResult result = AuditFiles(files);
    bool invalid = false;
    for (const Finding& f : result.findings) invalid |= f.rule->code == Code::kArtifactInvalid;
    // The last byte is a newline: cutting only it leaves valid JSON.
    if (text.find_first_not_of(" \n", cut) == std::string::npos) continue;
    EXPECT_TRUE(invalid) << "cut at " << cut << ":\n" << Describe(result);
  }
}

TEST(HostileInput, ShapeProductsThatOverflow) {
  TempDir dir;
  Files files = Vector("v1-single");
  EditHeader(files, [](boost::json::object& h) {
    h["tensor_manifest"].as_array()[1].as_object()["shape"] =
        boost::json::array{std::uint64_t{1} << 32, std::uint64_t{1} << 32, 4};
  });
  files["weights.safetensors"] =
      SafetensorsFile(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}})", "");
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "overflowing shapes");
  EXPECT_EQ(FindingsOf(result, "header-tensor-size-overflow").size(), 1u) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "safetensors-size-overflow").size(), 1u) << Describe(result);
}

TEST(HostileInput, TenThousandDeepNesting) {
  TempDir dir;
  Files files = Vector("v1-sharded");
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  files["header.json"] = "{\"schema_version\":" + deep + "}";
  files["weights.index.json"] = deep;
  files["weights-00000-of-00003.safetensors"] = SafetensorsFile("{\"a\":" + deep + "}", "");
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "10,000-deep nesting");
  // Issue 8 item 14: depth has its own finding, judged before anything else in the file.
  ASSERT_EQ(FindingsOf(result, "header-json-too-deep").size(), 1u) << Describe(result);
  ASSERT_EQ(FindingsOf(result, "index-json-too-deep").size(), 1u) << Describe(result);
  ASSERT_EQ(FindingsOf(result, "safetensors-header-too-deep").size(), 1u) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "header-json-too-deep")[0]->message,
            "header.json nests arrays and objects deeper than 127 levels (at line 1, column 145); it was not read "
            "further.");
  EXPECT_EQ(FindingsOf(result, "safetensors-header-too-deep")[0]->message,
            "weights-00000-of-00003.safetensors is not valid safetensors: the header nests arrays and objects deeper "
            "than 127 levels.");
  EXPECT_TRUE(FindingsOf(result, "header-json-syntax").empty());
}

// serde_json accepts 127 levels: deep free metadata in an index is not an error, and an
// unknown key at depth 100 is reported as an unknown key, not as a JSON error.
TEST(HostileInput, DeepButValidJsonIsJudgedOnItsContent) {
  TempDir dir;
  Files files = Vector("v1-sharded");
  std::string index = files["weights.index.json"];
  const std::string deep = std::string(125, '[') + "1" + std::string(125, ']');
  index.replace(index.find("\"metadata\": {") + 13, 0, "\"free\": " + deep + ", ");
  files["weights.index.json"] = index;
  std::string header = files["header.json"];
  std::string nested = "{\"unknown\": 1}";
  for (int i = 0; i < 99; ++i) nested.insert(0, "{\"x\": ").append("}");
  header.replace(header.rfind('}'), 0, ", \"extra\": " + nested);
  files["header.json"] = header;
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "deep but valid JSON");
  EXPECT_TRUE(FindingsOf(result, "index-json-too-deep").empty()) << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "index-json-invalid").empty()) << Describe(result);
  EXPECT_TRUE(FindingsOf(result, "index-structure").empty()) << Describe(result);
  ASSERT_EQ(FindingsOf(result, "header-unknown-field").size(), 1u) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "header-unknown-field")[0]->message,
            "header.json (schema_version 1) has unknown field 'extra'.");
}

// Issue 8 item 11: one broken file cannot flood memory or the report; causes come first.
TEST(HostileInput, OneBrokenFileCannotFloodTheReport) {
  TempDir dir;
  Files files = Vector("v1-single");
  EditHeader(files, [](boost::json::object& h) {
    auto& manifest = h["tensor_manifest"].as_array();
    for (int i = 0; i < 50000; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "predictor.z%06d", i);
      manifest.push_back({{"name", name}, {"group", "predictor"}, {"dtype", "float64"}, {"shape", {1}}});
    }
  });
  WriteFiles(files, dir.path());
  ResetPeakRss();
  const long rss_before = PeakRssKiB();
  AuditResult result = AuditPath(dir.path().string(), AuditOptions{});
#if !defined(__SANITIZE_ADDRESS__)  // ASan's redzones and quarantine measure themselves
  EXPECT_LT(PeakRssKiB() - rss_before, 64 * 1024) << "peak RSS grew too much";
#else
  (void)rss_before;
#endif
  std::map<std::string, std::size_t> per_rule;
  for (const Finding& f : result.findings) ++per_rule[std::string(f.rule->id)];
  for (const auto& [rule, n] : per_rule) EXPECT_LE(n, FindingSink::kMaxPerRuleAndFile) << rule;
  EXPECT_EQ(per_rule["header-dtype-invalid"], FindingSink::kMaxPerRuleAndFile);
  std::uint64_t dropped_dtype = 0;
  for (const DroppedFindings& d : result.dropped) {
    if (d.rule->id == "header-dtype-invalid") dropped_dtype = d.count;
  }
  EXPECT_EQ(dropped_dtype, 50000u - FindingSink::kMaxPerRuleAndFile);
  EXPECT_EQ(
      CountFindings(result).errors, result.findings.size() +
                                        [&] {
                                          std::uint64_t n = 0;
                                          for (const DroppedFindings& d : result.dropped) n += d.count;
                                          return n;
                                        }())
      << "counts include what was dropped";
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST(HostileInput, MissingShardIsReportedBeforeItsConsequences) {
  TempDir dir;
  Files files = Vector("v1-sharded");
  files.erase("weights-00001-of-00003.safetensors");
  WriteFiles(files, dir.path());
  AuditResult result = AuditPath(dir.path().string(), AuditOptions{});
  ASSERT_FALSE(result.findings.empty());
  EXPECT_EQ(result.findings[0].rule->tier, Tier::kRootCause) << Describe(result);
  bool seen_other = false;
  for (const Finding& f : result.findings) {
    if (f.rule->tier != Tier::kRootCause) seen_other = true;
    EXPECT_FALSE(seen_other && f.rule->tier == Tier::kRootCause) << "cause after a consequence:\n" << Describe(result);
  }
  EXPECT_FALSE(FindingsOf(result, "manifest-tensor-missing").empty()) << Describe(result);
}

TEST(HostileInput, MaxFindingsKeepsTheFirstAndCountsTheRest) {
  TempDir dir;
  Files files = Vector("v1-sharded");
  files.erase("weights-00001-of-00003.safetensors");
  WriteFiles(files, dir.path());
  AuditOptions capped;
  capped.max_findings = 2;
  AuditResult full = AuditPath(dir.path().string(), AuditOptions{});
  AuditResult result = AuditPath(dir.path().string(), capped);
  ASSERT_EQ(result.findings.size(), 2u);
  EXPECT_EQ(result.findings[0].message, full.findings[0].message);
  std::uint64_t dropped = 0;
  for (const DroppedFindings& d : result.dropped) dropped += d.count;
  EXPECT_EQ(dropped, full.findings.size() - 2);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
}

TEST(HostileInput, TwoHundredMegabyteHeaderJson) {
  TempDir dir;
  WriteFiles(Vector("v1-single"), dir.path());
  // A sparse 200 MB file: the size bound must refuse it before reading a byte.
  ASSERT_EQ(::truncate((dir.path() / "header.json").c_str(), 200'000'000), 0);
  AuditResult result = AuditHostile(dir.path(), "200 MB header.json");
  ASSERT_EQ(FindingsOf(result, "header-too-large").size(), 1u) << Describe(result);
  EXPECT_EQ(CodeName(FindingsOf(result, "header-too-large")[0]->rule->code), "ARTIFACT_INVALID");
}

TEST(HostileInput, TwoHundredMegabyteShardIndex) {
  TempDir dir;
  WriteFiles(Vector("v1-sharded"), dir.path());
  ASSERT_EQ(::truncate((dir.path() / "weights.index.json").c_str(), 200'000'000), 0);
  AuditResult result = AuditHostile(dir.path(), "200 MB weights.index.json");
  EXPECT_EQ(FindingsOf(result, "index-too-large").size(), 1u) << Describe(result);
}

TEST(HostileInput, HugeClaimedTensorInASmallFile) {
  TempDir dir;
  Files files = Vector("v1-single");
  // Offsets claim 2^60 bytes of data that the file does not have.
  files["weights.safetensors"] = SafetensorsFile(
      R"({"a":{"dtype":"U8","shape":[1152921504606846976],"data_offsets":[0,1152921504606846976]}})", "x");
  WriteFiles(files, dir.path());
  AuditResult result = AuditHostile(dir.path(), "2^60-byte tensor in a tiny file");
  EXPECT_EQ(FindingsOf(result, "safetensors-buffer-size").size(), 1u) << Describe(result);
}

TEST(HostileInput, SpecialFilesAreNeverOpened) {
  TempDir dir;
  WriteFiles(Vector("v1-single"), dir.path());
  ASSERT_EQ(::mkfifo((dir.path() / "pipe").c_str(), 0600), 0);
  std::filesystem::create_symlink("/etc/passwd", dir.path() / "passwd");
  std::filesystem::create_directory(dir.path() / "nested");
  AuditResult result = AuditHostile(dir.path(), "fifo, symlink and folder");  // a FIFO read would hang here
  EXPECT_EQ(FindingsOf(result, "layout-symlink").size(), 1u) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "layout-stray-entry").size(), 2u) << Describe(result);
}

TEST(HostileInput, SymlinkedWeightFileIsNotFollowed) {
  TempDir dir;
  TempDir elsewhere;
  Files files = Vector("v1-single");
  WriteFiles(files, dir.path());
  WriteFiles(files, elsewhere.path());
  std::filesystem::remove(dir.path() / "weights.safetensors");
  std::filesystem::create_symlink(elsewhere.path() / "weights.safetensors", dir.path() / "weights.safetensors");
  AuditResult result = AuditHostile(dir.path(), "symlinked weights");
  EXPECT_EQ(FindingsOf(result, "layout-symlink").size(), 1u) << Describe(result);
  EXPECT_FALSE(result.artifact.computed_hash.has_value()) << "bytes behind a symlink were hashed";
}

}  // namespace
}  // namespace ckpt::testing
