// What an organisation decides about findings, applied after the rules ran: a policy file's
// per-rule severities (--policy) and a baseline's accepted-for-now findings (--baseline).
// Both files are read strictly here; which rule ids exist and which are security rules is
// the catalog's to say (engine/gate.cpp resolves them), so this layer knows no rule.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lib/diff/rel_l2_limits.h"
#include "lib/findings/finding.h"

namespace ckpt {

/// A baseline file: {"suppressions": [{"rule", "path" (optional glob), "reason", "expires"}]}.
struct BaselineFile {
  std::vector<Suppression> entries;
};
/// The file's entries, or what is wrong with it (with its line and column).
std::variant<BaselineFile, std::string> ParseBaseline(std::string_view text);

/// A policy file: every field optional.
struct PolicyFile {
  std::optional<std::string> fail_on;  ///< error|warning|note|none
  std::optional<std::vector<std::string>> allowed_groups;
  std::optional<std::vector<std::string>> action_head_patterns;
  std::optional<bool> allow_wmcp_change;
  std::optional<std::vector<std::string>> expect_kinds;       ///< the input kinds a gate admits (--expect-kind)
  std::vector<std::pair<std::string, std::string>> severity;  ///< rule id -> error|warning|note|off
  /// ckpt-diff's limits: a number (pattern "*") or an object of pattern -> number, each finite, >= 0.
  std::vector<RelL2Limit> max_rel_l2;
};
std::variant<PolicyFile, std::string> ParsePolicy(std::string_view text);

/// True for a real calendar date written YYYY-MM-DD.
bool IsCalendarDate(std::string_view text);
/// Today in UTC as YYYY-MM-DD, from the clock (nothing overrides it).
std::string TodayUtc();

/// The resolved gate: rules by catalog entry, suppressions still in force.
struct Gate {
  /// Severity in force per rule the policy names; a nullopt value turns the rule off.
  std::map<const RuleInfo*, std::optional<Severity>> severity;
  std::vector<std::shared_ptr<const Suppression>> suppressions;  ///< not expired
  /// The directory baseline paths are relative to (absolute; empty: paths match as written):
  /// a finding matches an entry by its path relative to it, however the input was spelled.
  std::string path_root;
  [[nodiscard]] bool empty() const { return severity.empty() && suppressions.empty(); }
};

/// The path a report shows for a finding: its artifact root (the finding's own, else `root`)
/// and its file.
std::string ReportedPath(const std::string& root, const Location& location);

/// `path` (as a report shows it, relative to the working directory or absolute) relative to
/// `root`, '/'-separated; `path` itself when `root` is empty, the path is remote or lies
/// outside `root`.
std::string RootRelativePath(const std::string& root, const std::string& path);

/// The directory a baseline file's paths are relative to (absolute): `source_root` when given
/// (--source-root), else the nearest folder above `baseline_file` holding `.git`, else the
/// baseline's own folder.
std::string BaselineRoot(const std::optional<std::string>& source_root, const std::string& baseline_file);

/// fnmatch(3) without FNM_PATHNAME: `*` also crosses '/', as in "rounds/*/header.json".
bool GlobMatches(const std::string& pattern, const std::string& path);

/// Applies `gate` to one input's findings (reported under `root`): drops the rules turned
/// off, sets the severities in force, and marks what a suppression matches.
void ApplyGate(const Gate& gate, std::vector<Finding>& findings, std::vector<DroppedFindings>& dropped,
               const std::string& root);

}  // namespace ckpt
