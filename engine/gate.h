// The organisation's decisions over the catalog (--policy FILE, --baseline FILE), resolved
// against the rules: unknown rule ids and weakened security rules are refused (usage errors),
// expired baseline entries are reported (baseline-entry-expired), and the effective policy is
// one JSON object that reports print and signed statements carry.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/verdict.h"
#include "lib/gate/gate.h"
#include "lib/model/artifact.h"

namespace ckpt {

struct GateFiles {
  std::optional<std::string> baseline;  ///< --baseline FILE
  std::optional<std::string> policy;    ///< --policy FILE
  /// --source-root DIR: what baseline paths are relative to (default: the repository holding
  /// the baseline, found by .git, else the baseline's folder).
  std::optional<std::string> source_root;
};

struct ResolvedGate {
  Gate gate;
  PolicyFile policy;  ///< as read (empty without --policy)
  std::optional<std::string> policy_path;
  std::optional<std::string> baseline_path;
  std::vector<Suppression> entries;      ///< every baseline entry
  std::vector<Suppression> acceptances;  ///< every reviewed acceptance (policy's, then baseline's)
  std::vector<Suppression> expired;      ///< entries past their expiry (they suppress nothing)
  std::string today;                     ///< the date expiry was judged on
};

/// Reads and resolves the files; the error is a usage error's message.
std::variant<ResolvedGate, std::string> LoadGate(const GateFiles& files);

/// Applies the policy file to the audit policy (groups, patterns) and, unless the command line
/// set --fail-on, to the threshold. An error message for a bad fail_on value.
std::optional<std::string> ApplyPolicyFile(const ResolvedGate& gate, AuditOptions& policy, FailThreshold& threshold,
                                           bool fail_on_given);

/// One baseline-acceptance-void finding per reviewed acceptance that named a file but did not
/// hold for it (changed bytes, bytes not hashed, globals, calls or rules it does not list),
/// located at that file.
std::vector<Finding> AcceptanceMissFindings(const std::vector<AcceptanceMiss>& misses);

/// ApplyGate over an audited input's findings, with its files' SHA-256 (those the audit
/// computed) for the reviewed acceptances, and the acceptances' misses added as findings.
void ApplyGateToAudit(const Gate& gate, const Artifact& artifact, std::vector<Finding>& findings,
                      std::vector<DroppedFindings>& dropped, const std::string& root);

/// One baseline-entry-expired finding per expired entry or acceptance, located in its file.
std::vector<Finding> ExpiredEntryFindings(const ResolvedGate& gate);

/// The rule set in force: the count of rules not turned off and the SHA-256 of one line per
/// such rule, sorted by id, "<id> TAB <code> TAB <severity in force> LF".
struct RuleSetFingerprint {
  std::size_t count = 0;
  std::string sha256;
};
RuleSetFingerprint RulesInForce(const Gate* gate = nullptr);

/// A JSON array of `items`, each made valid UTF-8 (ToValidUtf8).
boost::json::array Utf8Strings(const std::vector<std::string>& items);

/// What changes a verdict, as reports print it and statements sign it.
boost::json::object EffectivePolicyJson(const AuditOptions& policy, FailThreshold threshold, const ResolvedGate* gate);

/// The entries --write-baseline writes: one per rule and reported path of the counting,
/// non-security findings, sorted and numbered in that order, with `reason` and `expires`.
std::vector<Suppression> BaselineEntries(const std::vector<std::pair<const Finding*, std::string>>& findings,
                                         const std::string& reason, const std::string& expires);
/// A baseline file holding `entries`, one a line.
std::string BaselineText(const std::vector<Suppression>& entries);
/// BaselineText(BaselineEntries(...)).
std::string BaselineFromFindings(const std::vector<std::pair<const Finding*, std::string>>& findings,
                                 const std::string& reason, const std::string& expires);

}  // namespace ckpt
