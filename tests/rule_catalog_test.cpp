// The catalog itself: ids unique, sorted, kebab-case with a known family prefix; names the
// PascalCase of the id; every rule documented and living in the file the registry names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "rules/catalog.h"

namespace ckpt::rules {
namespace {

// Lower-case words of [a-z0-9] joined by single hyphens, at least two words.
bool IsKebabCase(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-' || id.find("--") != std::string_view::npos) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return id.find('-') != std::string_view::npos;
}

TEST(RuleCatalog, IdsAreUniqueSortedAndKebabCase) {
  std::string previous;
  for (const RuleEntry& entry : AllRules()) {
    const std::string id(entry.info->id);
    EXPECT_TRUE(IsKebabCase(id)) << id;
    // The family is the id's first word and the folder of its source (no list to keep).
    std::string source = "rules/";
    source.append(id, 0, id.find('-')).append("/").append(id).append(".cpp");
    EXPECT_EQ(entry.source, source) << "family of " << id;
    EXPECT_LT(previous, id) << "registry not sorted or duplicate id at " << id;
    previous = id;
    EXPECT_EQ(FindRule(id), entry.info);
  }
  EXPECT_EQ(FindRule("no-such-rule"), nullptr);
}

TEST(RuleCatalog, NameIsPascalCaseOfId) {
  for (const RuleEntry& entry : AllRules()) {
    std::string expected;
    bool upper = true;
    for (char c : entry.info->id) {
      if (c == '-') {
        upper = true;
        continue;
      }
      expected.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
      upper = false;
    }
    EXPECT_EQ(entry.info->name, expected);
  }
}

TEST(RuleCatalog, EveryRuleIsDocumented) {
  for (const RuleEntry& entry : AllRules()) {
    const RuleInfo& r = *entry.info;
    EXPECT_FALSE(r.title.empty()) << r.id;
    EXPECT_GT(r.explanation.size(), 40u) << r.id << ": explanation too thin";
    EXPECT_LE(r.explanation.size(), 1024u) << r.id << ": explanation over 1,024 characters";
    EXPECT_FALSE(r.remediation.empty()) << r.id;
    EXPECT_NE(r.explanation.back(), ' ') << r.id;
  }
}

TEST(RuleCatalog, EachRuleLivesInTheFileTheRegistryNames) {
  for (const RuleEntry& entry : AllRules()) {
    const std::string id(entry.info->id);
    const std::string expected = "rules/" + id.substr(0, id.find('-')) + "/" + id + ".cpp";
    EXPECT_EQ(entry.source, expected);
    EXPECT_EQ(entry.listed_id, id) << "rules/rule_list.h lists the rule under another id";
    std::ifstream in(expected);
    ASSERT_TRUE(in) << expected << " missing";
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(".id = \"" + id + "\""), std::string::npos) << expected;
    const bool has_check = text.find("void Check(") != std::string::npos;
    EXPECT_EQ(has_check, entry.check != nullptr) << expected;
    const bool has_chain_check = text.find("void CheckChain(") != std::string::npos;
    EXPECT_EQ(has_chain_check, entry.chain_check != nullptr) << expected;
  }
}

TEST(RuleCatalog, SeverityDefaults) {
  // Valid-but-noncanonical input, unverified links and unverified hashes are warnings, and so
  // is what inputs.md section 4 calls a warning in a model folder; a widened policy and a
  // duplicate artifact are notes, and so is a pickle-based file's advice to prefer
  // safetensors; a joblib estimator (formats.md section 3) is a warning; all else is an error.
  const std::set<std::string_view> warnings = {"safetensors-noncanonical-whitespace",
                                               "chain-links-unverified",
                                               "hash-not-verified",
                                               "model-index-unknown-key",
                                               "model-shard-name",
                                               "model-unreferenced-weights",
                                               "model-total-size",
                                               "model-archive",
                                               "model-remote-code",
                                               "model-config-invalid",
                                               "gguf-nested-array",
                                               "template-invalid",
                                               "joblib-estimator",
                                               "onnx-custom-domain",
                                               "onnx-external-data-unread",
                                               "onnx-unknown-field",
                                               "keras-custom-object",
                                               "keras-metadata-invalid",
                                               "baseline-entry-expired",
                                               "baseline-acceptance-void",
                                               "baseline-acceptance-unmatched",
                                               "input-hard-link"};
  for (const RuleEntry& entry : AllRules()) {
    const std::string_view id = entry.info->id;
    Severity expected = warnings.count(id) ? Severity::kWarning
                        : (id == "residency-policy-widened" || id == "chain-duplicate-artifact" ||
                           id == "pickle-format-note" || id == "keras-library-module")
                            ? Severity::kNote
                            : Severity::kError;
    EXPECT_EQ(entry.info->severity, expected) << id;
  }
}

}  // namespace
}  // namespace ckpt::rules
