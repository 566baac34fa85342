// The organisation's decisions over the catalog (--policy FILE, --baseline FILE), resolved
// against the rules: unknown rule ids and weakened security rules are refused (usage errors),
// expired baseline entries are reported (baseline-entry-expired), and the effective policy is
// one JSON object that reports print and signed statements carry.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/verdict.h"
#include "lib/gate/gate.h"
#include "lib/model/artifact.h"
#include "lib/model/audit_result.h"

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

/// What each reviewed acceptance in force did over a run's audits: the findings it accepted
/// (in the gate's order), and a baseline-acceptance-unmatched warning, located in the policy
/// or baseline file, for each that accepted none and was not found void (it names no file the
/// run audited, or a file without a finding it could accept).
struct AcceptanceUse {
  std::vector<std::uint64_t> accepted;
  std::vector<Finding> unmatched;
};
AcceptanceUse JudgeAcceptanceUse(const ResolvedGate& gate, const std::vector<AuditResult>& results);

/// --write-acceptances: one reviewed acceptance entry per file holding security findings that
/// still count, bound to the file's SHA-256 from the audit's own reads, naming the globals and
/// calls its findings name and the rules of those naming neither, with `reason` until
/// `expires`; paths relative to `root` (BaselineRoot of the file written). A finding that
/// cannot be bound is left out and counted by why: its file's digest was not computed, a pickle
/// finding names no global or call (acceptances never name pickle rules), it was past the cap.
struct AcceptanceDraft {
  std::vector<Suppression> entries;                      ///< sorted by path
  std::vector<std::pair<Finding*, std::size_t>> covers;  ///< finding, its entry
  std::map<std::string, std::size_t> left_out;           ///< why, findings
};
AcceptanceDraft DraftAcceptances(std::vector<AuditResult>& results, const std::string& root, const std::string& reason,
                                 const std::string& expires);
/// The entries as a file --baseline (or a policy's "accept") reads: {"accept": [...]}, one entry a line.
std::string AcceptanceText(const std::vector<Suppression>& entries);

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
