// Every rule of the catalog fires on a generated fixture (asserting rule id and spec code)
// and stays quiet on clean artifacts. A catalog rule without a fire case fails the suite.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "engine/audit.h"
#include "lib/core/text.h"
#include "rules/catalog.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/fire_cases.h"
#include "tests/support/near_misses.h"

namespace ckpt::testing {
namespace {

class RuleFires : public ::testing::TestWithParam<FireCase> {};

TEST_P(RuleFires, ReportsRuleWithItsCode) {
  const FireCase& fc = GetParam();
  const ScopedEnvironment environment(fc.environment);
  AuditResult result = AuditInput(fc.make(), fc.form, fc.input_name, fc.policy, fc.entries, fc.replaced_on_open);
  auto hits = FindingsOf(result, fc.rule);
  ASSERT_FALSE(hits.empty()) << fc.rule << " did not fire; findings:\n" << Describe(result);
  for (const Finding* f : hits) {
    EXPECT_EQ(CodeName(f->rule->code), fc.code) << fc.rule;
    EXPECT_FALSE(f->message.empty());
    // A finding names its file, or points into the input itself (a tar, a file input) by offset.
    EXPECT_TRUE(!f->location.file.empty() || f->location.byte_offset) << fc.rule << ": a finding names its file";
  }
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
}

std::string CaseName(const ::testing::TestParamInfo<FireCase>& info) {
  std::string name = info.param.rule + "_" + info.param.variant;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleFires, ::testing::ValuesIn(AllFireCases()), CaseName);

TEST(RuleCatalogCoverage, EveryRuleHasAFireCase) {
  std::set<std::string> covered;
  for (const FireCase& fc : AllFireCases()) {
    EXPECT_NE(rules::FindRule(fc.rule), nullptr) << "fire case names unknown rule " << fc.rule;
    covered.insert(fc.rule);
  }
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    if (entry.scope() != rules::RuleScope::kArtifact) continue;  // chain rules: tests/chain_test.cpp
    EXPECT_TRUE(covered.count(std::string(entry.info->id))) << "no fire case for " << entry.info->id;
  }
}

// ---- quiet on clean artifacts: one test per rule, over several clean shapes.

std::vector<std::pair<std::string, Files>> CleanArtifacts() {
  std::vector<std::pair<std::string, Files>> out;
  out.emplace_back("clean", Clean());
  out.emplace_back("sharded", Sharded());
  out.emplace_back("v2", FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }));
  out.emplace_back("round 7", FromSpec([](ArtifactSpec& s) {
                     s.round_index = 7;
                     s.parent_hash = std::string(64, 'c');
                   }));
  out.emplace_back("metadata agrees", FromSpec([](ArtifactSpec& s) { s.metadata = {{"schema_version", "1"}}; }));
  out.emplace_back("no metadata, fractional created_at", FromSpec([](ArtifactSpec& s) {
                     s.metadata.clear();
                     s.created_at = "2024-02-29T23:59:60.123456z";
                   }));
  out.emplace_back("single tensor", FromSpec([](ArtifactSpec& s) { s.tensors.resize(1); }));
  ArtifactSpec many = ArtifactSpec::Uniform(12, 16);
  many.shards = 5;
  out.emplace_back("five shards", many.Build());
  return out;
}

class RuleQuiet : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleQuiet, SilentOnCleanArtifacts) {
  const std::string& rule = GetParam();
  for (const auto& [name, files] : CleanArtifacts()) {
    AuditResult result = AuditFiles(files);
    EXPECT_TRUE(FindingsOf(result, rule).empty()) << rule << " fired on clean artifact '" << name << "':\n"
                                                  << Describe(result);
  }
  for (const char* vector : {"v1-single", "v1-sharded", "v2-single", "v1-round1"}) {
    AuditResult result = AuditPath(std::string("fixtures/vectors/") + vector, AuditOptions{});
    EXPECT_TRUE(FindingsOf(result, rule).empty()) << rule << " fired on golden vector " << vector << ":\n"
                                                  << Describe(result);
    EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
  }
}

std::vector<std::string> AllRuleIds() {
  std::vector<std::string> ids;
  for (const rules::RuleEntry& entry : rules::AllRules()) ids.emplace_back(entry.info->id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleQuiet, ::testing::ValuesIn(AllRuleIds()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(CleanArtifacts, HaveNoFindingsAtAll) {
  for (const auto& [name, files] : CleanArtifacts()) {
    AuditResult result = AuditFiles(files);
    EXPECT_TRUE(result.findings.empty()) << name << ":\n" << Describe(result);
    ASSERT_TRUE(result.artifact.computed_hash.has_value()) << name;
  }
}

}  // namespace
}  // namespace ckpt::testing

namespace ckpt::testing {
namespace {

// Issue 8 item 2: action heads cannot hide behind Unicode. Each spelling is a real tensor
// (manifest and weights agree, so nothing else fires), and the message says how it matched.
TEST(ResidencyActionHead, HostileSpellingsAreCaught) {
  struct Case {
    const char* what;
    std::string component;
    std::string how;
  };
  const std::string folded = "(it matches after Unicode NFKC_Casefold folding)";
  const std::string skeleton = "(it matches by its UTS #39 confusable skeleton: look-alike characters)";
  const std::vector<Case> cases = {
      {"upper case", "ACTION_HEAD", "is an action head; per-embodiment"},
      {"fullwidth A",
       "\xEF\xBC\xA1"
       "ction_head",
       folded},
      {"zero-width space", "action\xE2\x80\x8B_head", folded},
      {"soft hyphen",
       "act\xC2\xAD"
       "ion_head",
       folded},
      {"dotless i", "act\xC4\xB1on_head", skeleton},
      {"Cyrillic a",
       "\xD0\xB0"
       "ction_head",
       skeleton},
      {"Cyrillic a and zero-width",
       "\xD0\xB0"
       "ction\xE2\x80\x8B_heads",
       skeleton},
      {"fullwidth full stop joins",
       "x\xEF\xBC\x8E"
       "act_head",
       folded},
  };
  for (const Case& c : cases) {
    const std::string name = "encoder." + c.component + ".w";
    Files files = FromSpec([&](ArtifactSpec& s) { s.tensors.push_back({name, "encoder", "float32", {2}, ""}); });
    AuditResult result = AuditFiles(files);
    auto hits = FindingsOf(result, "residency-action-head");
    ASSERT_FALSE(hits.empty()) << c.what << "\n" << Describe(result);
    EXPECT_EQ(CodeName(hits[0]->rule->code), "RESIDENCY_VIOLATION");
    EXPECT_NE(hits[0]->message.find(c.how), std::string::npos) << c.what << ": " << hits[0]->message;
    EXPECT_EQ(hits[0]->message.rfind("Tensor " + QuoteForMessage(name) + " (tensor_manifest) is an action head", 0), 0u)
        << hits[0]->message;
  }
}

TEST(ResidencyActionHead, NearMissesStayQuiet) {
  const std::string cyrillic_header = std::string("\xD0\xB0") + "ction_header";
  for (const std::string& component :
       {std::string("action_header"), std::string("transaction_head"), std::string("actionhead"),
        std::string("action-head"), std::string("act_heads_x"), std::string("acti0n_head"), cyrillic_header}) {
    const std::string name = "encoder." + component + ".w";
    Files files = FromSpec([&](ArtifactSpec& s) { s.tensors.push_back({name, "encoder", "float32", {2}, ""}); });
    AuditResult result = AuditFiles(files);
    EXPECT_TRUE(FindingsOf(result, "residency-action-head").empty()) << component << "\n" << Describe(result);
  }
}

}  // namespace
}  // namespace ckpt::testing

namespace ckpt::testing {
namespace {

// ---- near misses: each artifact rule stays quiet on an input as close to firing as it allows.

class RuleNearMiss : public ::testing::TestWithParam<NearMiss> {};

TEST_P(RuleNearMiss, StaysQuiet) {
  const NearMiss& nm = GetParam();
  AuditResult result = AuditInput(nm.make(), nm.form, nm.input_name, nm.policy);
  EXPECT_TRUE(FindingsOf(result, nm.rule).empty()) << nm.rule << " (" << nm.variant << ") fired:\n" << Describe(result);
  if (nm.clean) {
    EXPECT_TRUE(result.findings.empty()) << nm.variant << ": a clean near miss\n" << Describe(result);
  }
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
}

std::string NearMissName(const ::testing::TestParamInfo<NearMiss>& info) {
  std::string name = info.param.rule + "_" + std::to_string(info.index);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleNearMiss, ::testing::ValuesIn(AllNearMisses()), NearMissName);

TEST(RuleCatalogCoverage, EveryArtifactRuleHasANearMiss) {
  std::set<std::string> covered;
  for (const NearMiss& nm : AllNearMisses()) {
    EXPECT_NE(rules::FindRule(nm.rule), nullptr) << "near miss names unknown rule " << nm.rule;
    covered.insert(nm.rule);
  }
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    if (entry.scope() != rules::RuleScope::kArtifact) continue;  // chain and diff: their own suites
    EXPECT_TRUE(covered.count(std::string(entry.info->id))) << "no near miss for " << entry.info->id;
  }
}

}  // namespace
}  // namespace ckpt::testing
