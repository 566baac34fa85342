// What an organisation decides about findings, applied after the rules ran: a policy file's
// per-rule severities (--policy) and a baseline's accepted-for-now findings (--baseline).
// Both files are read strictly here; which rule ids exist and which are security rules is
// the catalog's to say (engine/gate.cpp resolves them), so this layer knows no rule.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lib/gate/rel_l2_limits.h"
#include "lib/json/strict_parser.h"
#include "lib/model/finding.h"

namespace ckpt {

/// A baseline file: {"suppressions": [{"rule", "path" | "path_glob", "reason", "expires"}],
/// "accept": [reviewed acceptances, as in a policy file]}.
struct BaselineFile {
  std::vector<Suppression> entries;
  std::vector<Suppression> acceptances;
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
  /// Reviewed acceptances: [{"path", "sha256", "globals", "calls", "rules", "reason", "expires"}].
  std::vector<Suppression> acceptances;
};
std::variant<PolicyFile, std::string> ParsePolicy(std::string_view text);

/// A policy, baseline or configuration file's text as one strict JSON object (no duplicate
/// keys), or why it is not one, with line and column.
std::variant<json::Document, std::string> ParseGateFile(std::string_view text);
/// " (line L, column C)" of `offset` in `doc`: where a gate file's message points.
std::string GateFileAt(const json::Document& doc, std::uint64_t offset);

/// True for a real calendar date written YYYY-MM-DD.
bool IsCalendarDate(std::string_view text);
/// Today in UTC as YYYY-MM-DD, from the clock (nothing overrides it).
std::string TodayUtc();

/// The resolved gate: rules by catalog entry, suppressions still in force.
struct Gate {
  /// Severity in force per rule the policy names; a nullopt value turns the rule off.
  std::map<const RuleInfo*, std::optional<Severity>> severity;
  std::vector<std::shared_ptr<const Suppression>> suppressions;  ///< not expired
  std::vector<std::shared_ptr<const Suppression>> acceptances;   ///< reviewed acceptances, not expired
  /// The directory baseline paths are relative to (absolute; empty: paths match as written):
  /// a finding matches an entry by its path relative to it, however the input was spelled.
  std::string path_root;
  [[nodiscard]] bool empty() const { return severity.empty() && suppressions.empty() && acceptances.empty(); }
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

/// A finding's fingerprint, "fp1:" and 32 hex digits of SHA-256 over its rule id, its path
/// relative to the root (RootRelativePath), and where in the file it is (JSON pointer, tensor,
/// pickle global and call), NUL-separated: the same finding has the same fingerprint however
/// the input was spelled, and neither a byte offset nor a message wording changes it.
std::string FindingFingerprint(std::string_view rule, const std::string& root_relative_path, const Location& at);

/// fnmatch(3) without FNM_PATHNAME: `*` also crosses '/', as in "rounds/*/header.json".
bool GlobMatches(const std::string& pattern, const std::string& path);

/// The SHA-256 (hex) of an input's file, by its name relative to the input root, when the
/// audit computed it.
using FileDigestLookup = std::function<std::optional<std::string>(const std::string& file)>;

/// Why a reviewed acceptance whose path names a file did not accept its findings there.
struct AcceptanceMiss {
  std::shared_ptr<const Suppression> entry;
  std::string file;                   ///< as the findings locate it (relative to the input root)
  std::string path;                   ///< as reports show it
  std::optional<std::string> sha256;  ///< the file's digest now; nullopt: not computed
  bool digest_differs = false;        ///< the bytes are not the reviewed ones
  std::vector<std::string> globals;   ///< globals found that the entry does not name
  std::vector<std::string> calls;     ///< calls found that the entry does not name
  std::vector<std::string> rules;     ///< rules of whole-file findings it does not name
  std::uint64_t unchecked = 0;        ///< findings past the report's cap, which name no global
};

/// True when the reviewed acceptance `entry` names the file `file` of the input `root` (its
/// name in the input, as a finding's location.file), in either form ApplyGate matches: relative
/// to the policy's root, or to the input.
bool AcceptanceNamesFile(const Gate& gate, const Suppression& entry, const std::string& root, const std::string& file);

/// Applies `gate` to one input's findings (reported under `root`): drops the rules turned
/// off, sets the severities in force, and marks what a suppression or a reviewed acceptance
/// matches. An acceptance holds only for the bytes it names (`digest_of`) and only for the
/// globals, calls and rules it lists; what it did not cover is returned, one miss per entry.
std::vector<AcceptanceMiss> ApplyGate(const Gate& gate, std::vector<Finding>& findings,
                                      std::vector<DroppedFindings>& dropped, const std::string& root,
                                      const FileDigestLookup& digest_of = {});

}  // namespace ckpt
