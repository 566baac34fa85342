// ckpt-diff summaries and per-part limits: every roll-up figure against values computed
// here by hand, with and without hashing and on one or two threads; --top, --changed-only and
// --rollup in the text and JSON reports and the SARIF run properties; frozen and training
// parts (--max-rel-l2 PATTERN=X and the policy file's max_rel_l2), the most specific pattern
// winning, and near misses that stay quiet.
#include "lib/diff/diff_summary.h"

#include <gtest/gtest.h>

#include <bit>
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "engine/diff_run.h"
#include "lib/gate/rel_l2_limits.h"
#include "reports/diff_reports.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

// A (round 0) and B (round 1, its child):
//   encoder.layers.0.w  {1,2,3,4} -> {1,2,3,5}   changed: diff^2 1, ||a||^2 30
//   encoder.layers.1.w  {3,4}     -> {3,4}       unchanged: ||a||^2 25
//   predictor.head.w    {2,0}     -> {2,3}       changed: diff^2 9, ||a||^2 4
//   predictor.tail.w    {1}       -> {1.5}       changed: diff^2 0.25, ||a||^2 1
//   predictor.old       {7}       removed;  predictor.new {1} added
struct Pair {
  TempDir dir;
  std::string a, b;
};
std::unique_ptr<Pair> MakePair(const std::function<void(ArtifactSpec&)>& change_b = {}) {
  auto p = std::make_unique<Pair>();
  ArtifactSpec a;
  a.tensors = {{"encoder.layers.0.w", "encoder", "float32", {4}, F32({1, 2, 3, 4})},
               {"encoder.layers.1.w", "encoder", "float32", {2}, F32({3, 4})},
               {"predictor.head.w", "predictor", "float32", {2}, F32({2, 0})},
               {"predictor.old", "predictor", "float32", {1}, F32({7})},
               {"predictor.tail.w", "predictor", "float32", {1}, F32({1})}};
  Round ra = WriteRound(p->dir.path(), "a", a);
  ArtifactSpec b = a;
  b.round_index = 1;
  b.parent_hash = ra.hash;
  b.tensors[0].data = F32({1, 2, 3, 5});
  b.tensors[2].data = F32({2, 3});
  b.tensors[4].data = F32({1.5f});
  b.tensors.erase(b.tensors.begin() + 3);
  b.tensors.push_back({"predictor.new", "predictor", "float32", {1}, F32({1})});
  if (change_b) change_b(b);
  WriteRound(p->dir.path(), "b", b);
  p->a = (p->dir.path() / "a").string();
  p->b = (p->dir.path() / "b").string();
  return p;
}

DiffOptions Options(unsigned jobs, bool hash) {
  DiffOptions o;
  o.jobs = jobs;
  o.policy.compute_hash = hash;
  return o;
}

const DiffRollup& Find(const std::vector<DiffRollup>& rollups, const std::string& key) {
  for (const DiffRollup& r : rollups) {
    if (r.key == key) return r;
  }
  throw std::logic_error("no roll-up " + key);
}

TEST(DiffSummary, EveryFigureMatchesAHandComputation) {
  auto p = MakePair();
  for (bool hash : {true, false}) {
    for (unsigned jobs : {1u, 2u}) {
      SCOPED_TRACE(std::string(hash ? "hashing" : "--no-hash") + ", jobs " + std::to_string(jobs));
      DiffRun run = RunDiff(p->a, p->b, Options(jobs, hash));
      const DiffSummary s = SummarizeDiff(run.tensors, 2, 10);
      EXPECT_EQ(s.model.tensors, 6u);
      EXPECT_EQ(s.model.count(TensorStatus::kChanged), 3u);
      EXPECT_EQ(s.model.count(TensorStatus::kUnchanged), 1u);
      EXPECT_EQ(s.model.count(TensorStatus::kAdded), 1u);
      EXPECT_EQ(s.model.count(TensorStatus::kRemoved), 1u);
      EXPECT_EQ(s.model.compared_elements, 9u);  // 4 + 2 + 2 + 1
      EXPECT_EQ(s.model.changed_elements, 3u);
      EXPECT_DOUBLE_EQ(s.model.max_abs, 3.0);
      EXPECT_DOUBLE_EQ(s.model.l2(), std::sqrt(10.25));
      EXPECT_DOUBLE_EQ(*s.model.rel_l2(), std::sqrt(10.25) / std::sqrt(60.0));

      ASSERT_EQ(s.groups.size(), 2u);
      const DiffRollup& encoder = Find(s.groups, "encoder");
      EXPECT_EQ(encoder.tensors, 2u);
      EXPECT_DOUBLE_EQ(encoder.l2(), 1.0);
      EXPECT_DOUBLE_EQ(*encoder.rel_l2(), 1.0 / std::sqrt(55.0)) << "the unchanged tensor's norm counts";
      const DiffRollup& predictor = Find(s.groups, "predictor");
      EXPECT_EQ(predictor.tensors, 4u);
      EXPECT_DOUBLE_EQ(predictor.l2(), std::sqrt(9.25));
      EXPECT_DOUBLE_EQ(*predictor.rel_l2(), std::sqrt(9.25) / std::sqrt(5.0));

      std::set<std::string> keys;
      for (const DiffRollup& r : s.prefixes) keys.insert(r.key);
      EXPECT_EQ(keys, (std::set<std::string>{"encoder.layers", "predictor.head", "predictor.new", "predictor.old",
                                             "predictor.tail"}));
      EXPECT_DOUBLE_EQ(*Find(s.prefixes, "predictor.head").rel_l2(), 1.5);
      EXPECT_FALSE(Find(s.prefixes, "predictor.new").rel_l2().has_value()) << "nothing compared: undefined";

      ASSERT_EQ(s.top.size(), 3u);
      EXPECT_EQ(s.top[0]->name, "predictor.head.w");    // 1.5
      EXPECT_EQ(s.top[1]->name, "predictor.tail.w");    // 0.5
      EXPECT_EQ(s.top[2]->name, "encoder.layers.0.w");  // 1/sqrt(30)
    }
  }
}

TEST(DiffSummary, RollupDepthAndTop) {
  auto p = MakePair();
  DiffRun run = RunDiff(p->a, p->b, Options(2, true));
  std::set<std::string> keys;
  for (const DiffRollup& r : SummarizeDiff(run.tensors, 3, 1).prefixes) keys.insert(r.key);
  EXPECT_EQ(keys, (std::set<std::string>{"encoder.layers.0", "encoder.layers.1", "predictor.head.w", "predictor.new",
                                         "predictor.old", "predictor.tail.w"}));
  keys.clear();
  for (const DiffRollup& r : SummarizeDiff(run.tensors, 1, 1).prefixes) keys.insert(r.key);
  EXPECT_EQ(keys, (std::set<std::string>{"encoder", "predictor"}));
  EXPECT_TRUE(SummarizeDiff(run.tensors, 0, 1).prefixes.empty());
  ASSERT_EQ(SummarizeDiff(run.tensors, 2, 1).top.size(), 1u);
  EXPECT_EQ(NamePrefix("a.b.c", 2), "a.b");
  EXPECT_EQ(NamePrefix("a", 2), "a");
  EXPECT_EQ(NamePrefix("a.b", 5), "a.b");
}

TEST(DiffSummary, LargeCountsAreShownWhole) {
  // A 268435456-element tensor of which 11069504 changed: the text table must not cut it.
  DiffRun run;
  TensorDiff t;
  t.name = "encoder.w";
  t.status = TensorStatus::kChanged;
  static constexpr std::uint64_t kShape[] = {268435456};  // a side views its layout
  t.a = TensorSide{"encoder", "float32", kShape};
  t.b = t.a;
  t.stats.emplace();
  t.stats->numel = 268435456;
  t.stats->changed = 11069504;
  t.stats->squared_diff.Add(4);
  t.stats->squared_a.Add(16);
  t.a_squared = t.stats->squared_a;
  run.tensors.push_back(t);
  std::ostringstream out;
  reports::WriteDiffText(out, run, reports::ReportContext{});
  EXPECT_NE(out.str().find("changed         0.5          0            11069504/268435456 encoder.w\n"),
            std::string::npos)
      << out.str();
}

TEST(DiffSummary, NonFiniteChangesAreCountedAndLeftOutOfL2) {
  auto p = MakePair([](ArtifactSpec& b) { b.tensors[2].data = F32({2, std::nanf("")}); });
  DiffRun run = RunDiff(p->a, p->b, Options(2, true));
  const DiffSummary s = SummarizeDiff(run.tensors, 2, 10);
  EXPECT_EQ(s.model.non_finite_pairs, 1u);
  EXPECT_DOUBLE_EQ(s.model.l2(), std::sqrt(1.25));
  EXPECT_EQ(s.top[0]->name, "predictor.head.w") << "a NaN change ranks first";
}

// ---- per-part limits

TEST(RelL2Limits, PatternsAndSpecificity) {
  EXPECT_TRUE(RelL2PatternMatches("encoder", "x.y", "encoder"));        // the group
  EXPECT_TRUE(RelL2PatternMatches("encoder", "encoder.w", "other"));    // a dotted prefix
  EXPECT_FALSE(RelL2PatternMatches("encoder", "encoders.w", "other"));  // near miss: not at a dot
  EXPECT_TRUE(RelL2PatternMatches("predictor.*", "predictor.a.b", ""));
  EXPECT_FALSE(RelL2PatternMatches("predictor.*", "predictor", ""));
  EXPECT_TRUE(RelL2PatternMatches("*", "anything", ""));
  EXPECT_LT(RelL2PatternSpecificity("*"), RelL2PatternSpecificity("encoder"));
  EXPECT_LT(RelL2PatternSpecificity("encoder"), RelL2PatternSpecificity("encoder.layers.*"));
  EXPECT_EQ(RelL2PatternSpecificity("a[bc]?"), 1u);
  const std::vector<RelL2Limit> limits = {
      {"*", 0.1}, {"encoder", 0}, {"encoder.layers.3", 0.5}, {"encoder.x", 0.2}, {"encoder.?", 0.3}};
  EXPECT_EQ(RelL2LimitFor(limits, "encoder.layers.3.w", {"encoder"})->limit, 0.5);
  EXPECT_EQ(RelL2LimitFor(limits, "encoder.layers.2.w", {"encoder"})->limit, 0);
  EXPECT_EQ(RelL2LimitFor(limits, "head.w", {"predictor"})->limit, 0.1);
  EXPECT_EQ(RelL2LimitFor({{"enc*", 0.4}, {"*der", 0.2}}, "encoder", {})->limit, 0.2) << "a tie: the stricter";
  EXPECT_EQ(RelL2LimitFor({{"encoder", 1}}, "head", {"predictor"}), nullptr);

  auto parsed = ParseRelL2Limit("predictor.*=0.05");
  ASSERT_TRUE(std::holds_alternative<RelL2Limit>(parsed));
  EXPECT_EQ(std::get<RelL2Limit>(parsed).pattern, "predictor.*");
  EXPECT_EQ(std::get<RelL2Limit>(parsed).limit, 0.05);
  EXPECT_EQ(std::get<RelL2Limit>(ParseRelL2Limit("0.3")).pattern, "*");
  EXPECT_EQ(std::get<RelL2Limit>(ParseRelL2Limit("a=b=1")).pattern, "a=b");
  for (const char* bad : {"=1", "enc=", "enc=x", "enc=-1", "enc=inf", "enc=nan", "1e999", "enc\x01=1", ""}) {
    EXPECT_TRUE(std::holds_alternative<std::string>(ParseRelL2Limit(bad))) << bad;
  }
}

std::vector<std::string> Messages(const DiffRun& run) {
  std::vector<std::string> out;
  for (const Finding& f : run.findings) {
    EXPECT_EQ(f.rule->id, "diff-rel-l2-exceeded");
    out.push_back(*f.location.tensor + ": " + f.message);
  }
  return out;
}

DiffRun WithLimits(const Pair& p, std::vector<RelL2Limit> limits) {
  DiffOptions o = Options(2, true);
  o.max_rel_l2 = std::move(limits);
  return RunDiff(p.a, p.b, o);
}

TEST(RelL2Limits, AFrozenGroupThatMovesFailsAndNamesItsTensors) {
  auto p = MakePair();
  EXPECT_EQ(Messages(WithLimits(*p, {{"encoder", 0}, {"predictor.*", 2}})),
            (std::vector<std::string>{"encoder.layers.0.w: Tensor 'encoder.layers.0.w' changed too much: rel_l2 is "
                                      "0.182574, above 0 (limit 0 of 'encoder')."}));
  // The predictor trains within its limit; only the most specific pattern decides.
  EXPECT_TRUE(WithLimits(*p, {{"encoder", 0}, {"encoder.layers.0", 1}, {"predictor", 2}}).findings.empty());
  EXPECT_EQ(Messages(WithLimits(*p, {{"*", 10}, {"predictor.head", 1}})),
            (std::vector<std::string>{"predictor.head.w: Tensor 'predictor.head.w' changed too much: rel_l2 is 1.5, "
                                      "above 1 (limit 1 of 'predictor.head')."}));
}

TEST(RelL2Limits, OneFlippedBitInAFrozenGroupFails) {
  // B's encoder.layers.0.w equals A's but for the last mantissa bit of one element.
  auto frozen = [](std::uint32_t flip) {
    return MakePair([flip](ArtifactSpec& b) {
      std::uint32_t bits = std::bit_cast<std::uint32_t>(3.0f) ^ flip;
      std::string data = F32({1, 2, 0, 4});
      std::memcpy(data.data() + 8, &bits, 4);
      b.tensors[0].data = data;
    });
  };
  auto p = frozen(1);
  std::vector<std::string> messages = Messages(WithLimits(*p, {{"encoder", 0}, {"predictor", 5}}));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("Tensor 'encoder.layers.0.w' changed too much: rel_l2 is 4.3"), std::string::npos)
      << messages[0];
  EXPECT_NE(messages[0].find("above 0 (limit 0 of 'encoder')."), std::string::npos) << messages[0];
  // Near miss: the same tensor untouched.
  auto same = frozen(0);
  EXPECT_TRUE(WithLimits(*same, {{"encoder", 0}, {"predictor", 5}}).findings.empty());
}

TEST(RelL2Limits, SignOfZeroAndStructuralChangesUnderAZeroLimit) {
  auto p = MakePair([](ArtifactSpec& b) {
    b.tensors[0].data = F32({1, 2, 3, 4});
    b.tensors[1].data = F32({3, 4});
    b.tensors[2].data = F32({2, -0.0f});  // -0 where A had +0: the bits moved, no value did
  });
  EXPECT_EQ(Messages(WithLimits(*p, {{"predictor", 0}})),
            (std::vector<std::string>{
                "predictor.head.w: Tensor 'predictor.head.w' changed too much: 1 of 2 elements changed bits, and a "
                "limit of 0 allows no change (limit 0 of 'predictor').",
                "predictor.new: Tensor 'predictor.new' was added, and a limit of 0 allows no change (limit 0 of "
                "'predictor').",
                "predictor.old: Tensor 'predictor.old' was removed, and a limit of 0 allows no change (limit 0 of "
                "'predictor').",
                "predictor.tail.w: Tensor 'predictor.tail.w' changed too much: rel_l2 is 0.5, above 0 (limit 0 of "
                "'predictor')."}));
  // Near miss: a limit above 0 lets the sign of zero and the added and removed tensors pass.
  EXPECT_EQ(WithLimits(*p, {{"predictor", 0.6}}).findings.size(), 0u);
}

// ---- command line

CommandResult Cli(const std::string& args) { return RunCommand(std::string(CKPT_DIFF_BIN) + " " + args + " 2>&1"); }

TEST(DiffSummaryCli, JsonSummaryAndSarifProperties) {
  auto p = MakePair();
  CommandResult r = Cli("--format json --rollup 3 --top 2 " + p->a + " " + p->b);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const boost::json::object report = boost::json::parse(r.output).as_object();
  const boost::json::object& summary = report.at("summary").as_object();
  const boost::json::object& model = summary.at("model").as_object();
  EXPECT_DOUBLE_EQ(model.at("l2").as_double(), std::sqrt(10.25));
  EXPECT_DOUBLE_EQ(model.at("rel_l2").as_double(), std::sqrt(10.25) / std::sqrt(60.0));
  EXPECT_EQ(model.at("counts").as_object().at("changed"), 3);
  EXPECT_EQ(summary.at("rollup_depth"), 3);
  EXPECT_EQ(summary.at("prefixes").as_array().size(), 6u);
  ASSERT_EQ(summary.at("top").as_array().size(), 2u);
  EXPECT_EQ(summary.at("top").as_array()[0].as_object().at("name"), "predictor.head.w");
  // --top 2: the table holds the two that moved most and every added or removed tensor.
  std::vector<std::string> listed;
  for (const auto& t : report.at("tensors").as_array()) listed.emplace_back(t.as_object().at("name").as_string());
  EXPECT_EQ(listed,
            (std::vector<std::string>{"predictor.head.w", "predictor.tail.w", "predictor.new", "predictor.old"}));

  CommandResult sarif = Cli("--format sarif " + p->a + " " + p->b);
  ASSERT_EQ(sarif.exit_code, 0) << sarif.output;
  const auto properties = boost::json::parse(sarif.output).at("runs").at(0).at("properties").as_object();
  EXPECT_DOUBLE_EQ(properties.at("summary").at("model").at("l2").as_double(), std::sqrt(10.25));
}

TEST(DiffSummaryCli, TextSummaryChangedOnlyAndTop) {
  auto p = MakePair();
  CommandResult all = Cli(p->a + " " + p->b);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("summary: 6 tensors: 3 changed, 1 added, 1 removed, 1 unchanged\n"), std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("model: l2 3.20156, rel_l2 0.41332, max_abs 3 (3 of 9 compared elements changed)\n"),
            std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("encoder                  2        1        0        1            0.13484\n"),
            std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("unchanged       -            -            -                encoder.layers.1.w\n"),
            std::string::npos);

  CommandResult changed_only = Cli("--changed-only " + p->a + " " + p->b);
  EXPECT_EQ(changed_only.output.find("encoder.layers.1.w\n"), std::string::npos) << changed_only.output;
  EXPECT_NE(changed_only.output.find("(1 tensor not listed: --changed-only)\n"), std::string::npos);

  CommandResult top = Cli("--top 1 " + p->a + " " + p->b);
  EXPECT_NE(top.output.find("moved most (top 1 of 3 changed):\n  1.5          predictor.head.w\n"), std::string::npos)
      << top.output;
  EXPECT_EQ(top.output.find("encoder.layers.0.w\n"), std::string::npos) << top.output;
  EXPECT_NE(top.output.find("(3 tensors not listed: --top 1)\n"), std::string::npos);
  EXPECT_NE(top.output.find("added           -            -            -                predictor.new\n"),
            std::string::npos);
}

TEST(DiffSummaryCli, LimitsFromTheCommandLineAndThePolicyFile) {
  auto p = MakePair();
  CommandResult frozen = Cli("--max-rel-l2 encoder=0 --max-rel-l2 'predictor.*=2' " + p->a + " " + p->b);
  EXPECT_EQ(frozen.exit_code, 1) << frozen.output;
  EXPECT_NE(
      frozen.output.find("/b/weights.safetensors@392: error: Tensor 'encoder.layers.0.w' changed too much: rel_l2 is "
                         "0.182574, above 0 (limit 0 "
                         "of 'encoder'). [diff-rel-l2-exceeded CHAIN_INTEGRITY]\n"),
      std::string::npos)
      << frozen.output;

  TempDir dir;
  const std::string policy = (dir.path() / "policy.json").string();
  WriteText(policy, R"({"max_rel_l2": {"encoder": 0, "predictor.*": 2}})");
  CommandResult from_policy = Cli("--format json --policy " + policy + " " + p->a + " " + p->b);
  EXPECT_EQ(from_policy.exit_code, 1) << from_policy.output;
  const auto report = boost::json::parse(from_policy.output).as_object();
  EXPECT_EQ(report.at("findings").as_array().size(), 1u);
  EXPECT_EQ(report.at("policy").at("max_rel_l2"), (boost::json::object{{"encoder", 0.0}, {"predictor.*", 2.0}}));
  // The command line wins over the policy for the same pattern.
  CommandResult overridden = Cli("--policy " + policy + " --max-rel-l2 encoder=1 " + p->a + " " + p->b);
  EXPECT_EQ(overridden.exit_code, 0) << overridden.output;

  for (const char* bad : {"--max-rel-l2 =1", "--max-rel-l2 encoder=x", "--max-rel-l2 encoder=-1", "--max-rel-l2 -1",
                          "--rollup 65", "--top -1"}) {
    CommandResult r = Cli(std::string(bad) + " " + p->a + " " + p->b);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
  }
  for (const char* bad_policy : {R"({"max_rel_l2": -1})", R"({"max_rel_l2": {"enc": "0"}})",
                                 R"({"max_rel_l2": {"": 1}})", R"({"max_rel_l2": [1]})"}) {
    WriteText(policy, bad_policy);
    CommandResult r = Cli("--policy " + policy + " " + p->a + " " + p->b);
    EXPECT_EQ(r.exit_code, 2) << bad_policy << ": " << r.output;
    EXPECT_NE(r.output.find("max_rel_l2"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace ckpt::testing
