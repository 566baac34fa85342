// The sorted rule table, generated from rules/rule_list.h (no static self-registration:
// the order and the complete list are visible there; tests/rule_catalog_test.cpp checks
// the order, each listed id against its RuleInfo, and each source path).
#include <algorithm>
#include <array>

#include "rules/catalog.h"

namespace ckpt::rules {
namespace {

#define CKPT_CHECKS_Read(ns) nullptr, nullptr, nullptr, RuleScope::kArtifact
#define CKPT_CHECKS_Attest(ns) nullptr, nullptr, nullptr, RuleScope::kAttestation
#define CKPT_CHECKS_Gate(ns) nullptr, nullptr, nullptr, RuleScope::kGate
#define CKPT_CHECKS_Convert(ns) nullptr, nullptr, nullptr, RuleScope::kConversion
#define CKPT_CHECKS_Checked(ns) &ns::Check, nullptr, nullptr, RuleScope::kArtifact
#define CKPT_CHECKS_ReadChecked(ns) &ns::Check, nullptr, nullptr, RuleScope::kArtifact
#define CKPT_CHECKS_Chain(ns) nullptr, &ns::CheckChain, nullptr, RuleScope::kArtifact
#define CKPT_CHECKS_Diff(ns) nullptr, nullptr, &ns::CheckDiff, RuleScope::kArtifact
#define CKPT_ENTRY(family, ns, id, kind) {&ns::kRule, CKPT_CHECKS_##kind(ns), "rules/" #family "/" id ".cpp", id},
const RuleEntry kRules[] = {CKPT_RULES(CKPT_ENTRY)};
#undef CKPT_ENTRY

}  // namespace

std::span<const RuleEntry> AllRules() { return kRules; }

const RuleInfo* FindRule(std::string_view id) {
  auto it = std::lower_bound(std::begin(kRules), std::end(kRules), id,
                             [](const RuleEntry& e, std::string_view key) { return e.info->id < key; });
  return (it != std::end(kRules) && it->info->id == id) ? it->info : nullptr;
}

}  // namespace ckpt::rules
