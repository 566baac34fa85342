// ckpt-chain: every chain rule fires on a generated history (asserting rule id, code and
// the hashes the finding names) and stays quiet on a clean 40-round history; a corrupted
// round and a forged header are caught; bad input behaves as documented.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <set>

#include "engine/chain_run.h"
#include "reports/chain_reports.h"
#include "reports/text_report.h"
#include "rules/catalog.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

ChainRun RunOn(const std::filesystem::path& root, ChainRunOptions options = {}) {
  options.jobs = options.jobs ? options.jobs : 2;
  return RunChain({root.string()}, options);
}

std::vector<const ChainFinding*> Chain(const ChainRun& run, std::string_view rule) {
  std::vector<const ChainFinding*> out;
  for (const ChainFinding& f : run.findings) {
    if (f.finding.rule->id == rule) out.push_back(&f);
  }
  return out;
}

std::string Describe(const ChainRun& run) {
  std::ostringstream out;
  reports::WriteChainText(out, run, reports::ReportContext{});
  return out.str();
}

bool AuditHas(const ChainRun& run, const std::string& path_suffix, std::string_view rule) {
  for (const ChainNode& n : run.graph.nodes) {
    if (n.path.size() < path_suffix.size() ||
        n.path.compare(n.path.size() - path_suffix.size(), path_suffix.size(), path_suffix) != 0)
      continue;
    for (const Finding& f : n.audit_findings) {
      if (f.rule->id == rule) return true;
    }
  }
  return false;
}

void FlipLastByte(const std::filesystem::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-1, std::ios::end);
  char c = 0;
  f.get(c);
  f.seekp(-1, std::ios::end);
  f.put(static_cast<char>(c ^ 0x5A));
}

void RewriteHeader(const std::filesystem::path& dir, const std::function<void(boost::json::object&)>& edit) {
  Files files;
  std::ifstream in(dir / "header.json");
  files["header.json"].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  EditHeader(files, edit);
  std::ofstream(dir / "header.json", std::ios::trunc) << files["header.json"];
}

// ---- fire cases

struct ChainCase {
  std::string rule;
  std::string variant;
  // Builds the history under `root`; returns the hashes the finding must name and the options.
  std::function<std::vector<std::string>(const std::filesystem::path& root, ChainRunOptions& options)> build;
};

std::vector<ChainCase> AllChainCases() {
  return {
      {"chain-gap", "round 5 missing",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 8);
         std::filesystem::remove_all(rounds[5].dir);
         return std::vector<std::string>{rounds[5].hash};
       }},
      {"chain-parent-untrusted", "round 5 corrupted",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 8);
         FlipLastByte(rounds[5].dir / "weights.safetensors");
         return std::vector<std::string>{rounds[5].hash.substr(0, 12)};
       }},
      {"chain-round-not-consecutive", "round 6 numbered 7",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 6);
         Round seven = WriteRound(root, "round-7", RoundSpec(7, rounds[5].hash));
         return std::vector<std::string>{seven.hash.substr(0, 12), rounds[5].hash.substr(0, 12)};
       }},
      {"chain-wmcp-changed", "wmcp 2.0 at round 3",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 3);
         ArtifactSpec spec = RoundSpec(3, rounds[2].hash);
         spec.wmcp_version = "wmcp-2.0";
         Round r = WriteRound(root, "round-0003", spec);
         return std::vector<std::string>{r.hash.substr(0, 12), rounds[2].hash.substr(0, 12)};
       }},
      {"chain-fork", "two children of round 2",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 4);
         ArtifactSpec other = RoundSpec(3, rounds[2].hash);
         other.config_hash = std::string(64, 'f');
         other.tensors[0].data[0] ^= 1;
         Round b = WriteRound(root, "round-0003-b", other);
         return std::vector<std::string>{rounds[2].hash.substr(0, 12), rounds[3].hash.substr(0, 12),
                                         b.hash.substr(0, 12)};
       }},
      {"chain-genesis-missing", "no round 0",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 4);
         std::filesystem::remove_all(rounds[0].dir);
         return std::vector<std::string>{rounds[1].hash.substr(0, 12)};
       }},
      {"chain-genesis-multiple", "two histories",
       [](const auto& root, auto&) {
         auto a = WriteHistory(root / "a", 2);
         ArtifactSpec other = RoundSpec(0, std::nullopt);
         other.wmcp_version = "wmcp-other";
         Round b = WriteRound(root, "b", other);
         return std::vector<std::string>{a[0].hash.substr(0, 12), b.hash.substr(0, 12)};
       }},
      {"chain-genesis-mismatch", "pinned other genesis",
       [](const auto& root, ChainRunOptions& options) {
         auto rounds = WriteHistory(root, 3);
         options.chain.genesis = std::string(64, 'a');
         return std::vector<std::string>{rounds[0].hash, std::string(64, 'a')};
       }},
      {"chain-cycle", "forged pair",
       [](const auto& root, auto&) {
         WriteHistory(root, 1);
         const std::string ha(64, '1'), hb(64, '2');
         Round a = WriteRound(root, "a", RoundSpec(1, hb));
         Round b = WriteRound(root, "b", RoundSpec(2, ha));
         RewriteHeader(a.dir, [&](boost::json::object& h) { h["content_hash"] = ha; });
         RewriteHeader(b.dir, [&](boost::json::object& h) { h["content_hash"] = hb; });
         return std::vector<std::string>{ha.substr(0, 12), hb.substr(0, 12)};
       }},
      {"chain-duplicate-artifact", "round 2 copied",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 3);
         std::filesystem::copy(rounds[2].dir, root / "copy-of-round-2");
         return std::vector<std::string>{rounds[2].hash.substr(0, 12)};
       }},
      {"chain-head-missing", "unknown head",
       [](const auto& root, ChainRunOptions& options) {
         WriteHistory(root, 3);
         options.chain.head = "deadbeefdeadbeef";
         return std::vector<std::string>{"deadbeefdeadbeef"};
       }},
      {"chain-links-unverified", "--no-hash",
       [](const auto& root, ChainRunOptions& options) {
         WriteHistory(root, 3);
         options.policy.compute_hash = false;
         options.chain.hashes_recomputed = false;
         return std::vector<std::string>{};
       }},
  };
}

class ChainRuleFires : public ::testing::TestWithParam<ChainCase> {};

void PrintTo(const ChainCase& c, std::ostream* os) { *os << c.rule << " (" << c.variant << ")"; }

TEST_P(ChainRuleFires, ReportsRuleCodeAndHashes) {
  TempDir dir;
  ChainRunOptions options;
  const std::vector<std::string> named = GetParam().build(dir.path(), options);
  ChainRun run = RunOn(dir.path(), options);
  auto hits = Chain(run, GetParam().rule);
  ASSERT_FALSE(hits.empty()) << GetParam().rule << " did not fire:\n" << Describe(run);
  EXPECT_EQ(CodeName(hits[0]->finding.rule->code), "CHAIN_INTEGRITY");
  for (const std::string& hash : named) {
    EXPECT_NE(hits[0]->finding.message.find(hash), std::string::npos)
        << "finding does not name " << hash << ": " << hits[0]->finding.message;
  }
  EXPECT_EQ(ChainExitCode(run, Severity::kError),
            hits[0]->finding.severity() == Severity::kError ? kExitFindings : kExitClean)
      << Describe(run);
}

INSTANTIATE_TEST_SUITE_P(Chain, ChainRuleFires, ::testing::ValuesIn(AllChainCases()),
                         [](const ::testing::TestParamInfo<ChainCase>& param_info) {
                           std::string name = param_info.param.rule;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name + "_" + std::to_string(param_info.index);
                         });

// Every chain fire case's exact rendered lines (paths under the temporary root shown as
// ROOT), kept in fixtures/golden/chain-fire-cases.txt; CKPT_UPDATE_GOLDEN=1 rewrites it.
TEST(ChainGolden, EveryFireCaseRendersExactly) {
  std::string out;
  for (const ChainCase& c : AllChainCases()) {
    TempDir dir;
    ChainRunOptions options;
    c.build(dir.path(), options);
    ChainRun run = RunOn(dir.path(), options);
    out += "== " + c.rule + " (" + c.variant + ")\n";
    for (const ChainFinding* f : Chain(run, c.rule)) out += reports::FindingLine("", f->finding) + "\n";
    const std::string root = dir.path().string();
    for (std::size_t at; (at = out.find(root)) != std::string::npos;) out.replace(at, root.size(), "ROOT");
  }
  const std::string golden = "fixtures/golden/chain-fire-cases.txt";
  if (std::getenv("CKPT_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << out;
    return;
  }
  std::ifstream in(golden, std::ios::binary);
  ASSERT_TRUE(in) << golden << " missing: run with CKPT_UPDATE_GOLDEN=1";
  EXPECT_EQ(out, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()))
      << golden << " changed; if intended, rerun with CKPT_UPDATE_GOLDEN=1 and review the diff";
}

// Near misses: each chain rule stays quiet on the history closest to firing it.
TEST(ChainNearMiss, EachRuleStaysQuietAtTheEdge) {
  struct NearMiss {
    std::string rule;
    std::function<void(const std::filesystem::path&, ChainRunOptions&)> build;
  };
  const std::vector<NearMiss> cases = {
      {"chain-gap", [](const auto& root, auto&) { WriteHistory(root, 3); }},
      {"chain-parent-untrusted",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 3);
         FlipLastByte(rounds[2].dir / "weights.safetensors");  // the head is corrupt; no child relies on it
       }},
      {"chain-round-not-consecutive", [](const auto& root, auto&) { WriteHistory(root, 4); }},
      {"chain-wmcp-changed",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 2);
         ArtifactSpec spec = RoundSpec(2, rounds[1].hash);
         spec.config_hash = std::string(64, 'c');  // provenance changes, wmcp_version does not
         WriteRound(root, "round-0002", spec);
       }},
      {"chain-fork",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 3);
         std::filesystem::copy(rounds[2].dir, root / "copy");  // the same round twice is no fork
       }},
      {"chain-genesis-missing", [](const auto& root, auto&) { WriteHistory(root, 1); }},
      {"chain-genesis-multiple",
       [](const auto& root, auto&) {
         auto rounds = WriteHistory(root, 2);
         std::filesystem::copy(rounds[0].dir, root / "copy-of-genesis");  // one genesis seen twice
       }},
      {"chain-genesis-mismatch",
       [](const auto& root, ChainRunOptions& options) {
         auto rounds = WriteHistory(root, 2);
         options.chain.genesis = rounds[0].hash;
       }},
      {"chain-cycle", [](const auto& root, auto&) { WriteHistory(root, 5); }},
      {"chain-duplicate-artifact", [](const auto& root, auto&) { WriteHistory(root, 3); }},
      {"chain-head-missing",
       [](const auto& root, ChainRunOptions& options) {
         auto rounds = WriteHistory(root, 3);
         options.chain.head = rounds[2].hash.substr(0, 8);  // the shortest prefix allowed
       }},
      {"chain-links-unverified", [](const auto& root, auto&) { WriteHistory(root, 2); }},
  };
  std::set<std::string> covered;
  for (const NearMiss& nm : cases) {
    TempDir dir;
    ChainRunOptions options;
    nm.build(dir.path(), options);
    ChainRun run = RunOn(dir.path(), options);
    EXPECT_TRUE(Chain(run, nm.rule).empty()) << nm.rule << " fired:\n" << Describe(run);
    covered.insert(nm.rule);
  }
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    if (entry.scope() != rules::RuleScope::kChain) continue;
    EXPECT_TRUE(covered.count(std::string(entry.info->id))) << entry.info->id;
  }
}

TEST(ChainCatalogCoverage, EveryChainRuleHasAFireCase) {
  std::set<std::string> covered;
  for (const ChainCase& c : AllChainCases()) covered.insert(c.rule);
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    if (entry.scope() != rules::RuleScope::kChain) continue;
    EXPECT_TRUE(covered.count(std::string(entry.info->id))) << "no chain fire case for " << entry.info->id;
  }
}

// ---- clean history, acceptance cases

TEST(Chain, CleanFortyRoundHistoryPasses) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 40);
  ChainRun run = RunOn(dir.path());
  EXPECT_TRUE(run.findings.empty()) << Describe(run);
  for (const ChainNode& n : run.graph.nodes) EXPECT_TRUE(n.audit_findings.empty()) << n.path;
  EXPECT_EQ(ChainExitCode(run, Severity::kError), kExitClean);
  ASSERT_EQ(run.history.size(), 40u);
  for (std::size_t k = 0; k < 40; ++k) {
    EXPECT_EQ(run.graph.nodes[run.history[k]].computed_hash, rounds[k].hash) << "history out of round order at " << k;
  }
  EXPECT_EQ(run.graph.edges.size(), 39u);
}

TEST(Chain, EveryChainRuleIsQuietOnACleanHistory) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 12);
  ChainRunOptions pinned;
  pinned.chain.genesis = rounds[0].hash;
  pinned.chain.head = rounds[11].hash.substr(0, 16);
  for (const ChainRunOptions& options : {ChainRunOptions{}, pinned}) {
    ChainRun run = RunOn(dir.path(), options);
    for (const rules::RuleEntry& entry : rules::AllRules()) {
      if (entry.scope() == rules::RuleScope::kChain) {
        EXPECT_TRUE(Chain(run, entry.info->id).empty()) << entry.info->id;
      }
    }
  }
}

TEST(Chain, FlippedWeightByteInTheMiddleFailsTheArtifactAndTheLink) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 9);
  FlipLastByte(rounds[4].dir / "weights.safetensors");
  ChainRun run = RunOn(dir.path());
  EXPECT_TRUE(AuditHas(run, "round-0004", "hash-mismatch")) << Describe(run);
  auto untrusted = Chain(run, "chain-parent-untrusted");
  ASSERT_EQ(untrusted.size(), 1u) << Describe(run);
  EXPECT_NE(run.graph.nodes[*untrusted[0]->node].path.find("round-0005"), std::string::npos);
  EXPECT_EQ(ChainExitCode(run, Severity::kError), kExitFindings);
}

TEST(Chain, ForgedHeaderIsCaught) {
  // The forger edits round 3's declared content_hash and points round 4 at the forged value.
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 3);
  const std::string forged(64, 'e');
  Round three = WriteRound(dir.path(), "round-0003", RoundSpec(3, rounds[2].hash));
  RewriteHeader(three.dir, [&](boost::json::object& h) { h["content_hash"] = forged; });
  Round four = WriteRound(dir.path(), "round-0004", RoundSpec(4, forged));
  ChainRun run = RunOn(dir.path());
  EXPECT_TRUE(AuditHas(run, "round-0003", "hash-mismatch")) << Describe(run);
  auto untrusted = Chain(run, "chain-parent-untrusted");
  ASSERT_EQ(untrusted.size(), 1u) << Describe(run);
  EXPECT_NE(untrusted[0]->finding.message.find(forged.substr(0, 12)), std::string::npos);
  EXPECT_NE(untrusted[0]->finding.message.find(three.hash.substr(0, 12)), std::string::npos) << "names the real hash";
  EXPECT_EQ(ChainExitCode(run, Severity::kError), kExitFindings);
}

TEST(Chain, HeadFollowsOneLineageAndIgnoresOtherBranches) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 5);
  ArtifactSpec other = RoundSpec(3, rounds[2].hash);
  other.tensors[0].data[0] ^= 1;
  Round branch = WriteRound(dir.path(), "branch-3", other);
  ChainRunOptions head;
  head.chain.head = rounds[4].hash.substr(0, 12);
  ChainRun run = RunOn(dir.path(), head);
  EXPECT_TRUE(run.findings.empty()) << Describe(run);
  EXPECT_EQ(run.history.size(), 5u);
  EXPECT_EQ(ChainExitCode(run, Severity::kError), kExitClean);
  ChainRun all = RunOn(dir.path());
  EXPECT_EQ(Chain(all, "chain-fork").size(), 2u) << Describe(all);  // told at each branch
}

// Issue 8 item 12: a copy of the head is the same node, and a decoy that only claims the
// head's hash (its bytes differ) is no candidate: the full hash is not "ambiguous".
TEST(Chain, HeadIgnoresCopiesAndDecoys) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 4);
  std::filesystem::copy(rounds[3].dir, dir.path() / "copy-of-head");
  std::filesystem::copy(rounds[3].dir, dir.path() / "decoy");
  FlipLastByte(dir.path() / "decoy" / "weights.safetensors");  // still declares the head's hash
  ChainRunOptions head;
  head.chain.head = rounds[3].hash;
  ChainRun run = RunOn(dir.path(), head);
  EXPECT_TRUE(Chain(run, "chain-head-missing").empty()) << Describe(run);
  ASSERT_TRUE(run.graph.head.has_value());
  const std::string& head_path = run.graph.nodes[*run.graph.head].path;
  EXPECT_TRUE(head_path == rounds[3].dir.string() || head_path == (dir.path() / "copy-of-head").string()) << head_path;
  EXPECT_EQ(run.history.size(), 4u) << Describe(run);
  EXPECT_EQ(ChainExitCode(run, Severity::kError), kExitClean) << Describe(run);
  // Near miss: two different artifacts matching a short prefix are still ambiguous.
  ChainRunOptions prefix;
  prefix.chain.head = "0";
  ChainRun ambiguous = RunOn(dir.path(), prefix);
  if (ambiguous.graph.head_matches > 1) {
    ASSERT_EQ(Chain(ambiguous, "chain-head-missing").size(), 1u);
    EXPECT_NE(Chain(ambiguous, "chain-head-missing")[0]->finding.message.find("give more digits"), std::string::npos);
  }
}

TEST(Chain, ResultsDoNotDependOnTheJobCount) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 10);
  std::filesystem::remove_all(rounds[6].dir);
  ChainRunOptions one, four;
  one.jobs = 1;
  four.jobs = 4;
  reports::ReportContext context;
  std::ostringstream a, b;
  reports::WriteChainJson(a, RunOn(dir.path(), one), context);
  reports::WriteChainJson(b, RunOn(dir.path(), four), context);
  EXPECT_EQ(a.str(), b.str());
}

// ---- bad input, through the command line

CommandResult Cli(const std::string& args) { return RunCommand(std::string(CKPT_CHAIN_BIN) + " " + args + " 2>&1"); }

// Issue 16, acceptance 4: rounds 30-39 verified on top of an already-proven round 29 agree
// with the full verification of 40 rounds on those ten, without chain-genesis-missing.
TEST(ChainCli, TrustedParentVerifiesOnlyTheNewRounds) {
  TempDir dir;
  const std::vector<Round> rounds = WriteHistory(dir.path() / "h", 40);
  const CommandResult full = Cli("--format json " + dir.path().string() + "/h");
  ASSERT_EQ(full.exit_code, 0) << full.output;
  std::map<std::string, std::string> verdict_of;  // hash -> verdict, from the full run
  const boost::json::value full_report = boost::json::parse(full.output);
  for (const boost::json::value& n : full_report.at("history").as_array()) {
    verdict_of[std::string(n.at("content_hash").at("computed").as_string())] = std::string(n.at("verdict").as_string());
  }
  std::string newer;
  for (std::size_t i = 30; i < 40; ++i) newer += " " + rounds[i].dir.string();
  const CommandResult on_top = Cli("--format json --trusted-parent " + rounds[29].hash + newer);
  ASSERT_EQ(on_top.exit_code, 0) << on_top.output;
  const boost::json::value report = boost::json::parse(on_top.output);
  const boost::json::array& history = report.at("history").as_array();
  ASSERT_EQ(history.size(), 10U);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const std::string hash(history[i].at("content_hash").at("computed").as_string());
    EXPECT_EQ(hash, rounds[30 + i].hash);
    EXPECT_EQ(std::string(history[i].at("verdict").as_string()), verdict_of.at(hash));
    EXPECT_EQ(history[i].at("findings").as_array().size(), 0U);
  }
  EXPECT_EQ(report.at("findings").as_array().size(), 0U);
  // The near misses: without the trusted parent, or with another round's hash, the first new
  // round names a parent that is not there and the history has no start.
  for (const std::string& extra : {std::string(), "--trusted-parent " + rounds[28].hash}) {
    const CommandResult broken = Cli(extra + newer);
    EXPECT_EQ(broken.exit_code, 1) << broken.output;
    EXPECT_NE(broken.output.find("[chain-gap CHAIN_INTEGRITY]"), std::string::npos) << broken.output;
    EXPECT_NE(broken.output.find("[chain-genesis-missing CHAIN_INTEGRITY]"), std::string::npos) << broken.output;
  }
  EXPECT_EQ(Cli("--trusted-parent nothex" + newer).exit_code, 2);
}

// Issue 30, item 3: round 7 tampered (its child's link fails because of it), round 12
// missing, a fork on round 20. Every format lists the tampering first, every chain finding
// is located in its round's folder, and the story names all three.
TEST(ChainCli, TheRootCauseComesFirstInEveryFormat) {
  TempDir dir;
  const std::filesystem::path h = dir.path() / "h";
  std::vector<Round> rounds = WriteHistory(h, 30);
  {
    std::fstream f(rounds[7].dir / "weights.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  std::filesystem::remove_all(rounds[12].dir);
  ArtifactSpec fork = RoundSpec(21, rounds[20].hash);
  fork.tensors[0].data[0] ^= 1;
  WriteRound(h, "fork-0021", fork);
  // The fork is found at its branches (round 21 twice) and told where the history branches;
  // round 20 itself passes, its content intact.
  const std::string story = "round 29 does not trace to genesis: tampered at 7, gap at 12, fork at 20.";
  const std::string round7 = (rounds[7].dir / "header.json").string();

  CommandResult text = Cli(h.string());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.output.substr(0, story.size() + 1), story + "\n") << text.output;
  EXPECT_NE(text.output.find("\n12     (missing: no artifact in the set)\n"), std::string::npos) << text.output;
  // -q: the story, the findings root cause first (the consequence last), the summary.
  CommandResult quiet = Cli("-q " + h.string());
  EXPECT_EQ(quiet.exit_code, 1);
  std::vector<std::string> lines;
  for (std::size_t at = 0, next; at < quiet.output.size(); at = next + 1) {
    next = quiet.output.find('\n', at);
    lines.push_back(quiet.output.substr(at, next - at));
  }
  ASSERT_EQ(lines.size(), 7u) << quiet.output;
  EXPECT_EQ(lines[0], story);
  EXPECT_EQ(lines[1].rfind(round7 + ":1:36: error: The recomputed content hash is ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("[hash-mismatch CHECKPOINT_INTEGRITY]"), std::string::npos);
  EXPECT_EQ(lines[2].rfind((rounds[13].dir / "header.json").string() + ":1:117: error: ", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find("[chain-gap CHAIN_INTEGRITY]"), std::string::npos);
  std::set<std::string> fork_files;
  for (const std::string& line : {lines[3], lines[4]}) {
    EXPECT_NE(line.find(" is one of 2 children of round 20 at " + rounds[20].dir.string()), std::string::npos) << line;
    EXPECT_NE(line.find("[chain-fork CHAIN_INTEGRITY]"), std::string::npos) << line;
    fork_files.insert(line.substr(0, line.find(":1:117: error: ")));
  }
  EXPECT_EQ(fork_files, (std::set<std::string>{(rounds[21].dir / "header.json").string(),
                                               (h / "fork-0021" / "header.json").string()}));
  EXPECT_EQ(lines[5].rfind((rounds[8].dir / "header.json").string() + ":1:117: error: ", 0), 0u) << lines[5];
  EXPECT_NE(lines[5].find("[chain-parent-untrusted CHAIN_INTEGRITY]"), std::string::npos);
  EXPECT_EQ(lines[6].rfind("30 artifacts in the history", 0), 0u) << lines[6];

  const boost::json::object json = boost::json::parse(Cli("--format json " + h.string()).output).as_object();
  EXPECT_EQ(json.at("story").at("line").as_string(), story);
  EXPECT_FALSE(json.at("story").at("traces").as_bool());
  const boost::json::array& causes = json.at("findings_by_cause").as_array();
  ASSERT_EQ(causes.size(), 5u);
  EXPECT_EQ(causes[0].at("rule").as_string(), "hash-mismatch");
  EXPECT_EQ(causes[0].at("round_index").to_number<int>(), 7);
  EXPECT_EQ(causes[4].at("rule").as_string(), "chain-parent-untrusted");
  for (const boost::json::value& f : causes) {
    EXPECT_FALSE(f.at("location").at("artifact").as_string().empty()) << f;
  }
  EXPECT_EQ(json.at("missing_rounds").at(0).at("first").to_number<int>(), 12);
  for (const boost::json::value& n : json.at("history").as_array()) {
    if (n.at("path").as_string() == rounds[8].dir.string()) {
      EXPECT_EQ(n.at("first_failing_rule").as_string(), "chain-parent-untrusted");
    }
    if (n.at("path").as_string() == rounds[9].dir.string()) {
      EXPECT_TRUE(n.at("first_failing_rule").is_null());
    }
  }

  const boost::json::object sarif = boost::json::parse(Cli("--format sarif " + h.string()).output).as_object();
  const boost::json::array& results = sarif.at("runs").at(0).at("results").as_array();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].at("ruleId").as_string(), "hash-mismatch");
  EXPECT_EQ(results[4].at("ruleId").as_string(), "chain-parent-untrusted");
  const boost::json::array gitlab = boost::json::parse(Cli("--format gitlab " + h.string()).output).as_array();
  ASSERT_EQ(gitlab.size(), 5u);
  EXPECT_EQ(gitlab[0].at("check_name").as_string(), "hash-mismatch");
  EXPECT_NE(std::string(gitlab[1].at("location").at("path").as_string()).find("round-0013/header.json"),
            std::string::npos);
  const std::string junit = Cli("--format junit " + h.string()).output;
  EXPECT_LT(junit.find("[hash-mismatch"), junit.find("[chain-parent-untrusted")) << junit;
  const std::string html = Cli("--format html " + h.string()).output;
  const std::size_t first = html.find("<h2>Findings, root cause first</h2>");
  ASSERT_NE(first, std::string::npos) << html;
  EXPECT_LT(html.find("<code>hash-mismatch</code> <code>" + round7 + ":1:36</code>", first),
            html.find("<code>chain-gap</code>", first));
  EXPECT_NE(html.find("<b class=\"story\">" + story + "</b>"), std::string::npos);
  EXPECT_NE(html.find("<code>" + (rounds[13].dir / "header.json").string() + ":1:117</code>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">12</td><td colspan=\"5\"><i>missing: no artifact in the set</i>"),
            std::string::npos);
  EXPECT_NE(html.find("</span></td><td><code>chain-fork</code></td><td><code>" + rounds[21].dir.string()),
            std::string::npos);
  // The fork's parent passes: its content is intact, the branches are what is contested.
  for (const boost::json::value& n : json.at("history").as_array()) {
    if (n.at("path").as_string() == rounds[20].dir.string()) {
      EXPECT_EQ(n.at("verdict").as_string(), "pass");
    }
  }
}

// Issue 51 item 4: under --head, a lineage broken by one missing round is missing that round
// alone (rounds 0-11 are there, outside the lineage), told once as the gap.
TEST(ChainCli, UnderHeadOneMissingRoundIsTheWholeGap) {
  TempDir dir;
  const std::vector<Round> rounds = WriteHistory(dir.path() / "h", 15);
  std::filesystem::remove_all(rounds[12].dir);
  const CommandResult run = Cli("--head " + rounds[14].hash + " " + (dir.path() / "h").string());
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output.rfind("round 14 does not trace to genesis: gap at 12.\n", 0), 0u) << run.output;
  // Near miss: the whole history tells the same story.
  const CommandResult all = Cli((dir.path() / "h").string());
  EXPECT_EQ(all.output.rfind("round 14 does not trace to genesis: gap at 12.\n", 0), 0u) << all.output;
}

// The near miss: a sound history tells that its head traces to genesis, and -q prints the
// story and the summary only.
TEST(ChainCli, ASoundHistoryTracesToGenesis) {
  TempDir dir;
  const std::vector<Round> rounds = WriteHistory(dir.path() / "h", 5);
  const CommandResult quiet = Cli("-q " + (dir.path() / "h").string());
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.output,
            "round 4 traces to genesis through 5 rounds.\n5 artifacts in the history (5 found): 5 passed, "
            "0 failed; rounds 0-4; 0 findings (fail-on error; ckpt-chain " CKPT_VERSION ")\n");
}

// Issue 51 item 1: a history at a repository's root gets its reports there. A report beside
// the rounds, or inside one, is no round and changes nothing on the next run; a report named
// as a round's file or a signed statement would be read as one, and is refused.
TEST(ChainCli, ReportsBesideTheRoundsAreLeftOutAndOnesNamedAsItsFilesAreRefused) {
  TempDir dir;
  const std::vector<Round> rounds = WriteHistory(dir.path(), 3);
  const std::string root = ShellQuote(dir.path());
  const std::string reports = " --report json=" + ShellQuote(dir.path() / "chain.json") +
                              " --report sarif=" + ShellQuote(rounds[1].dir / "chain.sarif");
  for (int run = 0; run < 2; ++run) {
    const CommandResult result = Cli(std::string("-q").append(reports).append(" ").append(root));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("round 2 traces to genesis through 3 rounds."), std::string::npos) << result.output;
  }
  const auto report = boost::json::parse(ReadText(dir.path() / "chain.json")).as_object();
  EXPECT_EQ(report.at("history").as_array().size(), 3u);
  EXPECT_EQ(report.at("exit_code"), 0);
  for (const char* named : {"header.json", "notes.dsse.json"}) {
    const CommandResult refused = Cli("-f json -o " + ShellQuote(dir.path() / "reports" / named) + " " + root);
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("names a file the audit of '" + dir.path().string() + "' judges"), std::string::npos)
        << refused.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "reports" / named));
  }
  EXPECT_EQ(Cli("-o " + root + " " + root).exit_code, 2);  // the input itself
}

TEST(ChainCli, EmptyFolderAndNoArtifactsExitTwo) {
  TempDir dir;
  CommandResult empty = Cli(dir.path().string());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.output.find("no artifact"), std::string::npos) << empty.output;
  std::filesystem::create_directories(dir.path() / "a" / "b");
  std::ofstream(dir.path() / "a" / "notes.txt") << "x";
  EXPECT_EQ(Cli(dir.path().string()).exit_code, 2);
  EXPECT_EQ(Cli("/nonexistent/history").exit_code, 2);
  EXPECT_EQ(Cli("").exit_code, 2);
  EXPECT_EQ(Cli("--format svg " + dir.path().string()).exit_code, 2);
  EXPECT_EQ(Cli("--head xyz " + dir.path().string()).exit_code, 2);
  EXPECT_EQ(Cli("--genesis abc " + dir.path().string()).exit_code, 2);
  EXPECT_EQ(Cli("--jobs 0 " + dir.path().string()).exit_code, 2);
}

TEST(ChainCli, CleanHistoryExitsZeroAndJsonParses) {
  TempDir dir;
  WriteHistory(dir.path(), 4);
  CommandResult text = Cli(dir.path().string());
  EXPECT_EQ(text.exit_code, 0) << text.output;
  CommandResult json = Cli("--format json " + dir.path().string());
  auto report = boost::json::parse(json.output).as_object();
  EXPECT_EQ(report["history"].as_array().size(), 4u);
  EXPECT_EQ(report["edges"].as_array().size(), 3u);
  EXPECT_EQ(report["exit_code"], 0);
}

TEST(ChainCli, UnreadableArtifactIsAToolError) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path(), 3);
  const std::filesystem::path weights = rounds[1].dir / "weights.safetensors";
  std::filesystem::permissions(weights, std::filesystem::perms::none);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);  // mkdtemp made it 0700
  const std::optional<std::string> prefix = UnprivilegedPrefix();
  if (!prefix)
    CKPT_MISSING_PREREQUISITE() << "running as root without setpriv: cannot drop privileges for a permission test";
  // The binary and the working directory must be reachable by the other user even when the
  // checkout sits in a private (0700) directory: run a copy from the temporary folder.
  const std::string chain = ReachableCopy(CKPT_CHAIN_BIN, dir.path().string());
  CommandResult run =
      RunCommand("cd " + dir.path().string() + " && " + *prefix + chain + " " + dir.path().string() + " 2>&1");
  const std::string& out = run.output;
  EXPECT_EQ(run.exit_code, 2) << out;
  EXPECT_NE(out.find("Permission denied"), std::string::npos) << out;
  EXPECT_NE(out.find("round-0002"), std::string::npos) << "the other artifacts are still reported:\n" << out;
}

// Issue 8 item 17: started from a working directory the user cannot reach (a clone in a
// private 0700 directory), the default source root is no usage error.
TEST(ChainCli, UnreachableWorkingDirectoryIsNoUsageError) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path() / "h", 2);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  std::filesystem::create_directory(dir.path() / "private");
  std::filesystem::permissions(dir.path() / "private", std::filesystem::perms::owner_all);
  const std::optional<std::string> prefix = UnprivilegedPrefix();
  if (!prefix || prefix->empty())
    CKPT_MISSING_PREREQUISITE() << "needs root and setpriv to run from a directory the user cannot reach";
  const std::string chain = ReachableCopy(CKPT_CHAIN_BIN, dir.path().string());
  for (const char* format : {"text", "sarif"}) {
    CommandResult run = RunCommand("cd " + (dir.path() / "private").string() + " && " + *prefix + chain + " --format " +
                                   format + " " + (dir.path() / "h").string() + " 2>&1");
    EXPECT_EQ(run.exit_code, 0) << format << ": " << run.output;
    EXPECT_EQ(run.output.find("must be a directory"), std::string::npos) << run.output;
  }
}

// ---- pictures (issue 16 item 2): rows that wrap at page width, checked on Graphviz's own layout

// One box of the rendered picture: its label (lines joined by '|') and centre in points.
struct RenderedBox {
  std::string name;
  std::string label;
  double x = 0, y = 0;
};
struct Rendered {
  std::vector<RenderedBox> boxes;
  std::uint32_t png_width = 0;
  std::string dot;
  [[nodiscard]] const RenderedBox& Named(const std::string& label_start) const {
    for (const RenderedBox& b : boxes) {
      if (b.label.rfind(label_start, 0) == 0) return b;
    }
    throw std::logic_error("no box labelled " + label_start);
  }
  [[nodiscard]] const RenderedBox& Node(const std::string& name) const {
    for (const RenderedBox& b : boxes) {
      if (b.name == name) return b;
    }
    throw std::logic_error("no node " + name);
  }
  [[nodiscard]] std::vector<const RenderedBox*> AllNamed(const std::string& label_start) const {
    std::vector<const RenderedBox*> out;
    for (const RenderedBox& b : boxes) {
      if (b.label.rfind(label_start, 0) == 0) out.push_back(&b);
    }
    return out;
  }
};

std::uint32_t PngWidth(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[24] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(header) + 12, 4), "IHDR");
  return std::uint32_t{header[16]} << 24 | std::uint32_t{header[17]} << 16 | std::uint32_t{header[18]} << 8 |
         std::uint32_t{header[19]};
}

Rendered RenderChain(const std::filesystem::path& history, const std::filesystem::path& out) {
  Rendered r;
  const std::string dot = (out / "history.dot").string();
  Cli("--format dot -o " + dot + " " + history.string());
  r.dot = ReadText(dot);
  const std::string png = (out / "history.png").string();
  EXPECT_EQ(std::system(("dot -Tpng " + dot + " -o " + png).c_str()), 0) << r.dot;
  r.png_width = PngWidth(png);
  CommandResult json = RunCommand("dot -Tjson " + dot);
  EXPECT_EQ(json.exit_code, 0) << json.output;
  const boost::json::value layout = boost::json::parse(json.output);
  for (const auto& object : layout.at("objects").as_array()) {
    const auto& o = object.as_object();
    if (!o.contains("pos") || !o.contains("label")) continue;  // subgraphs
    RenderedBox box;
    box.name = std::string(o.at("name").as_string());
    box.label = std::string(o.at("label").as_string());
    for (std::size_t at = box.label.find("\\n"); at != std::string::npos; at = box.label.find("\\n", at)) {
      box.label.replace(at, 2, "|");
    }
    const std::string pos(o.at("pos").as_string());
    box.x = std::stod(pos.substr(0, pos.find(',')));
    box.y = std::stod(pos.substr(pos.find(',') + 1));
    r.boxes.push_back(std::move(box));
  }
  return r;
}

bool HaveGraphviz() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

TEST(ChainPicture, ACleanFortyRoundHistoryWrapsIntoRowsOfEight) {
  if (!HaveGraphviz())
    CKPT_MISSING_PREREQUISITE() << "Graphviz dot not installed (scripts/install-deps --test installs it)";
  TempDir dir;
  WriteHistory(dir.path() / "h", 40);
  const Rendered r = RenderChain(dir.path() / "h", dir.path());
  EXPECT_LE(r.png_width, 2400u) << "dot -Tpng is " << r.png_width << " px wide";
  EXPECT_NE(
      r.dot.find("label=\"40 artifacts in the history (40 found): 40 passed, 0 failed; rounds 0-39; 0 findings\""),
      std::string::npos)
      << r.dot;
  std::vector<double> row_y;
  for (int round = 0; round < 40; ++round) {
    const RenderedBox& box = r.Named("round " + std::to_string(round) + "|");
    EXPECT_NE(box.label.find("|pass"), std::string::npos) << box.label;
    if (round % 8 == 0) {
      if (!row_y.empty()) {
        EXPECT_LT(box.y, row_y.back()) << "row " << round / 8 << " lies below the one before";
      }
      row_y.push_back(box.y);
      continue;
    }
    const RenderedBox& left = r.Named("round " + std::to_string(round - 1) + "|");
    EXPECT_EQ(box.y, left.y) << "round " << round << " shares its row";
    EXPECT_GT(box.x, left.x) << "round " << round << " lies right of round " << round - 1;
  }
  EXPECT_EQ(row_y.size(), 5u);
  EXPECT_GT(r.Node("legend").y, row_y.front()) << "the legend lies above the first row";
}

TEST(ChainPicture, GapsForksFailuresAndWmcpChangesAreDrawnInPlace) {
  if (!HaveGraphviz())
    CKPT_MISSING_PREREQUISITE() << "Graphviz dot not installed (scripts/install-deps --test installs it)";
  TempDir dir;
  const std::filesystem::path h = dir.path() / "h";
  std::vector<Round> rounds;
  std::optional<std::string> parent;
  for (std::uint64_t i = 0; i < 40; ++i) {
    ArtifactSpec spec = RoundSpec(i, parent);
    if (i >= 34) spec.wmcp_version = "wmcp-2.0";  // the link 33 -> 34 changes it
    char name[32];
    std::snprintf(name, sizeof name, "round-%04llu", static_cast<unsigned long long>(i));
    rounds.push_back(WriteRound(h, name, spec));
    parent = rounds.back().hash;
  }
  ArtifactSpec fork = RoundSpec(22, rounds[21].hash);
  fork.tensors[0].data[0] ^= 1;
  WriteRound(h, "fork-0022", fork);
  std::filesystem::remove_all(rounds[13].dir);
  std::filesystem::remove_all(rounds[14].dir);
  {
    std::fstream f(rounds[30].dir / "weights.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  std::filesystem::create_directories(h / "broken-round");
  WriteText((h / "broken-round" / "header.json").string(), "{");

  const Rendered r = RenderChain(h, dir.path());
  EXPECT_LE(r.png_width, 2400u) << "dot -Tpng is " << r.png_width << " px wide";
  // The missing rounds: one box in their place, between rounds 12 and 15 on their row.
  const RenderedBox& gap = r.Named("rounds 13-14|missing|" + rounds[14].hash.substr(0, 12));
  EXPECT_EQ(gap.y, r.Named("round 12|").y);
  EXPECT_GT(gap.x, r.Named("round 12|").x);
  EXPECT_LT(gap.x, r.Named("round 15|").x);
  EXPECT_NE(r.Named("round 15|").label.find("|fail: chain-gap"), std::string::npos);
  // The fork: both rounds 22 side by side, nothing between them.
  const auto twins = r.AllNamed("round 22|");
  ASSERT_EQ(twins.size(), 2u);
  EXPECT_EQ(twins[0]->y, twins[1]->y);
  for (const RenderedBox& b : r.boxes) {
    if (b.y != twins[0]->y || &b == twins[0] || &b == twins[1]) continue;
    EXPECT_FALSE(b.x > std::min(twins[0]->x, twins[1]->x) && b.x < std::max(twins[0]->x, twins[1]->x)) << b.label;
  }
  EXPECT_NE(r.Named("round 21|").label.find("(fork)"), std::string::npos);
  // Failed rounds name their first failing rule; the unreadable artifact its path.
  EXPECT_NE(r.Named("round 30|").label.find("|fail: hash-|mismatch"), std::string::npos) << r.Named("round 30|").label;
  EXPECT_NE(r.Named("round 31|").label.find("|fail: chain-|parent-"), std::string::npos) << r.Named("round 31|").label;
  std::string unplaced = r.Named("round ?|").label;
  EXPECT_NE(unplaced.find("|fail: layout-no-|weights"), std::string::npos) << unplaced;
  std::erase(unplaced, '|');
  EXPECT_NE(unplaced.find("/h/broken-round"), std::string::npos) << "known by its path: " << unplaced;
  EXPECT_LT(r.Named("round ?|").y, r.Named("round 39|").y) << "artifacts with no round come last";
  // The wmcp change sits on its edge; the legend explains every mark.
  EXPECT_NE(r.dot.find("n33 -> n34 [color=\"#8e44ad\", fontcolor=\"#8e44ad\", penwidth=2, label=\"wmcp wmcp-1.0 -> "
                       "wmcp-2.0\"]"),
            std::string::npos)
      << r.dot;
  for (const char* legend : {">pass<", ">fail: first rule<", ">not audited<", ">missing round<", ">fork<",
                             "untrusted link<", "wmcp changed<"}) {
    EXPECT_NE(r.dot.find(legend), std::string::npos) << legend;
  }
  // Round 21, whose two children fork, passes: the branches fail.
  EXPECT_EQ(r.Named("round 21|").label.find("fail"), std::string::npos) << r.Named("round 21|").label;
  EXPECT_NE(r.dot.find("label=\"40 artifacts in the history (40 found): 33 passed, 7 failed; rounds 0-39 (2 "
                       "missing); 8 findings\""),
            std::string::npos)
      << r.dot;
}

TEST(ChainPicture, HostileNamesCannotCloseALabel) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path() / "h", 2);
  const std::filesystem::path hostile = dir.path() / "h" / "x\"];evil[label=\"\xE2\x80\xAE\\";
  std::filesystem::create_directories(hostile);
  WriteText((hostile / "header.json").string(), "{");
  CommandResult r = Cli("--format dot " + (dir.path() / "h").string());
  EXPECT_NE(r.output.find("x\\\"];evil[label=\\\"\\\\u202e\\\\\"]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("\xE2\x80\xAE"), std::string::npos) << "bidi controls are escaped";
  if (!HaveGraphviz()) return;
  const Rendered picture = RenderChain(dir.path() / "h", dir.path());
  std::set<std::string> names;
  for (const RenderedBox& b : picture.boxes) names.insert(b.name);
  EXPECT_EQ(names, (std::set<std::string>{"legend", "n0", "n1", "n2"})) << "no node the input named";
  EXPECT_NE(picture.Named("round ?|").label.find("x\"];evil[label"), std::string::npos) << "text, not markup";
}

TEST(ChainCli, MermaidMarksGapsAndForks) {
  TempDir dir;
  auto rounds = WriteHistory(dir.path() / "h", 6);
  std::filesystem::remove_all(rounds[3].dir);  // gap
  ArtifactSpec other = RoundSpec(2, rounds[1].hash);
  other.tensors[0].data[0] ^= 1;
  WriteRound(dir.path() / "h", "fork-2", other);  // fork at round 1
  CommandResult mermaid = Cli("--format mermaid " + (dir.path() / "h").string());
  EXPECT_NE(mermaid.output.find("flowchart LR"), std::string::npos);
  EXPECT_NE(mermaid.output.find(":::gap"), std::string::npos);
  EXPECT_NE(mermaid.output.find("class n"), std::string::npos);
}

// Ten thousand artifacts, timed, are under the perf label (tests/perf_test.cpp); here a
// thousand check behaviour only, so a busy machine cannot fail the functional suite.
TEST(ChainScale, AThousandTinyArtifacts) {
  TempDir dir;
  ArtifactSpec spec;
  spec.tensors = {{"encoder.w", "encoder", "float32", {1}, ""}};
  spec.FillData();
  const Files files = spec.Build();
  constexpr int kArtifacts = 1000;
  for (int i = 0; i < kArtifacts; ++i) {
    WriteFiles(files, dir.path() / ("g" + std::to_string(i / 100)) / ("a" + std::to_string(i)));
  }
  ChainRun run = RunOn(dir.path());
  EXPECT_EQ(run.graph.nodes.size(), static_cast<std::size_t>(kArtifacts));
  EXPECT_EQ(Chain(run, "chain-duplicate-artifact").size(), static_cast<std::size_t>(kArtifacts - 1));
}

}  // namespace
}  // namespace ckpt::testing
