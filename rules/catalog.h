// The rule catalog: every rule of ckpt-audit, declared once here (sorted by id) and
// defined in rules/<family>/<rule-id>.cpp with its documentation and, for rules checked
// after reading, its Check function. rules/registry.cpp lists them in the same order.
#pragma once

#include <span>
#include <string_view>

#include "lib/chain/chain_graph.h"
#include "lib/model/artifact.h"
#include "lib/model/finding.h"
#include "rules/rule_list.h"

// A rule detected while a file is read: its RuleInfo only.
#define CKPT_RULE(ns)                  \
  namespace ns {                       \
  extern const ::ckpt::RuleInfo kRule; \
  }
// A rule checked on a parent_hash history (ckpt-chain).
#define CKPT_CHAIN_RULE(ns)                                                         \
  namespace ns {                                                                    \
  extern const ::ckpt::RuleInfo kRule;                                              \
  void CheckChain(const ::ckpt::ChainGraph& graph, ::ckpt::ChainFindingSink& sink); \
  }
// A rule checked on the comparison of two rounds (ckpt-diff).
#define CKPT_DIFF_RULE(ns)                                               \
  namespace ns {                                                         \
  extern const ::ckpt::RuleInfo kRule;                                   \
  void CheckDiff(const ::ckpt::DiffRun& run, ::ckpt::FindingSink& sink); \
  }
// A rule checked on the artifact model after reading.
#define CKPT_CHECKED_RULE(ns)                                              \
  namespace ns {                                                           \
  extern const ::ckpt::RuleInfo kRule;                                     \
  void Check(const ::ckpt::Artifact& artifact, ::ckpt::FindingSink& sink); \
  }

namespace ckpt {
struct DiffRun;  // lib/diff/diff.h
}  // namespace ckpt

namespace ckpt::rules {

#define CKPT_DECLARE_Read(ns) CKPT_RULE(ns)
#define CKPT_DECLARE_Attest(ns) CKPT_RULE(ns)
#define CKPT_DECLARE_Gate(ns) CKPT_RULE(ns)
#define CKPT_DECLARE_Convert(ns) CKPT_RULE(ns)
#define CKPT_DECLARE_Checked(ns) CKPT_CHECKED_RULE(ns)
#define CKPT_DECLARE_ReadChecked(ns) CKPT_CHECKED_RULE(ns)
#define CKPT_DECLARE_Chain(ns) CKPT_CHAIN_RULE(ns)
#define CKPT_DECLARE_Diff(ns) CKPT_DIFF_RULE(ns)
#define CKPT_DECLARE(family, ns, id, kind) CKPT_DECLARE_##kind(ns)
CKPT_RULES(CKPT_DECLARE)
#undef CKPT_DECLARE
#undef CKPT_DECLARE_Read
#undef CKPT_DECLARE_Attest
#undef CKPT_DECLARE_Gate
#undef CKPT_DECLARE_Convert
#undef CKPT_DECLARE_Checked
#undef CKPT_DECLARE_ReadChecked
#undef CKPT_DECLARE_Chain
#undef CKPT_DECLARE_Diff

/// What a rule looks at.
enum class RuleScope {
  kArtifact,     ///< one artifact (ckpt-audit and every tool that audits artifacts)
  kChain,        ///< a parent_hash history (ckpt-chain)
  kDiff,         ///< two rounds compared (ckpt-diff)
  kAttestation,  ///< signed statements and derivation records verified (--verify-*, ckpt-chain --trusted-key)
  kGate,         ///< about a baseline or policy file (engine/gate.cpp)
  kConversion,   ///< why ckpt-convert refuses a checkpoint (lib/convert/)
};

/// One entry of the registry.
struct RuleEntry {
  const RuleInfo* info;
  void (*check)(const Artifact&, FindingSink&);               ///< artifact rules checked after reading
  void (*chain_check)(const ChainGraph&, ChainFindingSink&);  ///< chain rules
  void (*diff_check)(const DiffRun&, FindingSink&);           ///< diff rules (gates)
  RuleScope fixed_scope;       ///< the scope of a rule without a check function (artifact, attestation, gate)
  std::string_view source;     ///< rules/<family>/<rule-id>.cpp
  std::string_view listed_id;  ///< the id rules/rule_list.h gives it (tested against RuleInfo::id)
  [[nodiscard]] RuleScope scope() const {
    return chain_check ? RuleScope::kChain : diff_check ? RuleScope::kDiff : fixed_scope;
  }
};

/// Every rule, sorted by id.
std::span<const RuleEntry> AllRules();
/// The rule with this id, or nullptr.
const RuleInfo* FindRule(std::string_view id);

}  // namespace ckpt::rules

#undef CKPT_RULE
#undef CKPT_CHECKED_RULE
#undef CKPT_CHAIN_RULE
#undef CKPT_DIFF_RULE
