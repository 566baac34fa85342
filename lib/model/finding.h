// Findings are data: every problem found in an artifact is a Finding that names its rule.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/input_kind.h"

namespace ckpt {

/// How serious a finding is; maps 1:1 to SARIF `level`. Ordered: a threshold keeps
/// everything at or above it.
enum class Severity {
  kNote,     ///< worth knowing, never a sign of damage (a policy in effect, a duplicate)
  kWarning,  ///< valid but not canonical, or suspicious without proof of damage
  kError,    ///< the artifact must not be trusted as it is
};

/// The spec's error codes (artifact-format.md section 7). Every finding carries one.
enum class Code {
  kSchemaVersionMismatch,
  kCheckpointIntegrity,
  kResidencyViolation,
  kArtifactInvalid,
  kChainIntegrity,
};

std::string_view SeverityName(Severity severity);  ///< "note", "warning", "error"
std::string_view CodeName(Code code);              ///< "CHECKPOINT_INTEGRITY", ...
std::optional<Severity> ParseSeverity(std::string_view text);

/// Where a rule's findings stand in a report: causes before their consequences, so a
/// missing shard is read before the hundred manifest entries it leaves unmatched.
enum class Tier {
  kRootCause,    ///< layout and confinement: what is missing, extra or misplaced
  kPrimary,      ///< a fact about one file
  kConsequence,  ///< a cross-check that fails because something above failed
};

/// One rule of the catalog: stable id, code, default severity and its documentation.
struct RuleInfo {
  std::string_view id;    ///< lower-kebab, family prefix, never reused
  std::string_view name;  ///< PascalCase form of the id (SARIF `name`)
  Code code;
  Severity severity;
  std::string_view title;        ///< one line
  std::string_view explanation;  ///< one paragraph: what it means and why it matters
  std::string_view remediation;  ///< how to fix it
  bool security;                 ///< guards against tampering, code execution or residency breaches
  Tier tier = Tier::kPrimary;    ///< report order (see Tier)
  /// The inputs a rule checked on the model applies to (a Lensemble rule says nothing
  /// about a plain safetensors file). Rules reported by readers fire where their reader runs.
  InputKinds inputs = InputKinds::Lensemble();
  /// Also every kind the pickle analyser reads and every container of other formats' files
  /// (the format table's pickle_family and holds_other_formats): a rule never lists kinds of
  /// another format's module.
  bool pickle_inputs = false;
};

/// Where a finding points. `file` is relative to the artifact root.
struct Location {
  std::string artifact;  ///< artifact root, for reports spanning several artifacts (chains); empty otherwise
  std::string file;
  std::optional<std::string> json_pointer;   ///< header.json / weights.index.json / safetensors header
  std::optional<std::uint64_t> line;         ///< JSON files: 1-based
  std::optional<std::uint64_t> column;       ///< JSON files: 1-based, UTF-16 code units
  std::optional<std::uint64_t> byte_offset;  ///< weight files: offset in the file
  std::optional<std::uint64_t> byte_length;
  std::optional<std::string> tensor;  ///< the tensor involved, when there is one
  /// What a pickle finding is about, as a reviewed acceptance names it: the imported global
  /// ("module.name") and, for a call, the call as rendered ("module.name(args)").
  std::optional<std::string> global;
  std::optional<std::string> call;
};

/// A baseline entry that accepts findings for now (--baseline), or a reviewed acceptance
/// (an `accept` entry of the policy or baseline file): the findings it matches stay in every
/// report, marked, and count toward no verdict or exit code until the entry expires.
struct Suppression {
  /// A baseline suppression names a rule and a path; a reviewed acceptance names one file by
  /// path and SHA-256 and what was reviewed in those bytes (security findings included).
  enum class Kind { kBaseline, kAcceptance };
  Kind kind = Kind::kBaseline;
  std::string rule;                      ///< baseline: the rule it suppresses
  std::optional<std::string> path;       ///< the reported file path, matched literally
  std::optional<std::string> path_glob;  ///< a glob a person wrote over the reported path (fnmatch)
  /// One finding's fingerprint (FindingFingerprint, as the JSON report prints it): the entry
  /// then suppresses that finding only, wherever the input is spelled from.
  std::optional<std::string> fingerprint;
  std::string reason;
  std::string expires;    ///< YYYY-MM-DD, the last day it suppresses
  std::size_t index = 0;  ///< 0-based position in its list of the file
  std::string source;     ///< the file it was read from (--policy or --baseline), as given
  // Acceptance only:
  std::string sha256;                ///< the reviewed bytes (64 lowercase hex)
  std::vector<std::string> globals;  ///< the globals accepted in them ("module.name")
  std::vector<std::string> calls;    ///< the calls accepted in them, as reports render them
  std::vector<std::string> rules;    ///< whole-file rules accepted for them (model-remote-code)
  [[nodiscard]] bool acceptance() const { return kind == Kind::kAcceptance; }
};

struct Finding {
  const RuleInfo* rule = nullptr;
  Location location;
  std::string message;  ///< a complete sentence naming the tensor, field or hash involved
  /// --policy: the severity in force when a policy file sets one for the rule.
  std::optional<Severity> severity_override = std::nullopt;
  /// --baseline: the entry that accepts it for now; nullptr when it counts.
  std::shared_ptr<const Suppression> suppression = nullptr;

  [[nodiscard]] Severity severity() const { return severity_override.value_or(rule->severity); }
  /// Whether it counts toward verdicts and exit codes (it is not suppressed).
  [[nodiscard]] bool counts() const { return suppression == nullptr; }
};

/// Findings of one rule in one file that were counted but not kept.
struct DroppedFindings {
  const RuleInfo* rule = nullptr;
  std::string file;
  std::uint64_t count = 0;
  std::optional<Severity> severity_override = std::nullopt;
  std::shared_ptr<const Suppression> suppression = nullptr;

  [[nodiscard]] Severity severity() const { return severity_override.value_or(rule->severity); }
  [[nodiscard]] bool counts() const { return suppression == nullptr; }
};

/// Collects findings in the order they are found. One rule repeats at most
/// kMaxPerRuleAndFile times in one file (one broken file cannot flood memory or a report);
/// the rest are counted in dropped(), and every report says how many.
class FindingSink {
 public:
  static constexpr std::uint64_t kMaxPerRuleAndFile = 100;

  void Report(const RuleInfo& rule, Location location, std::string message) {
    const std::string file = location.file;
    ReportWith(rule, file, [&] { return std::pair(std::move(location), std::move(message)); });
  }
  /// Report() at a severity other than the rule's for this one finding (`severity` nullopt:
  /// the rule's), as a rule whose cases differ in weight reports them.
  void Report(const RuleInfo& rule, Location location, std::string message, std::optional<Severity> severity) {
    const std::size_t before = findings_.size();
    Report(rule, std::move(location), std::move(message));
    if (severity && findings_.size() > before && *severity != rule.severity)
      findings_.back().severity_override = severity;
  }
  /// Report() for checks that can fire once per element of a hostile input: `make` (returning
  /// {Location, message}) runs only while the rule's cap in `file` is not reached, so a
  /// million repeats cost a counter each, not a location and a message.
  template <class Make>
  void ReportWith(const RuleInfo& rule, const std::string& file, Make make) {
    auto& [kept, dropped] = per_file_[{&rule, file}];
    if (kept >= kMaxPerRuleAndFile) {
      ++dropped;
      return;
    }
    ++kept;
    auto [location, message] = make();
    findings_.push_back(Finding{&rule, std::move(location), std::move(message)});
  }
  [[nodiscard]] const std::vector<Finding>& findings() const { return findings_; }
  [[nodiscard]] std::vector<Finding>& findings() { return findings_; }
  [[nodiscard]] std::vector<DroppedFindings> dropped() const;

 private:
  std::vector<Finding> findings_;
  std::map<std::pair<const RuleInfo*, std::string>, std::pair<std::uint64_t, std::uint64_t>>
      per_file_;  // kept, dropped
};

/// Adds `extra` into `into`, merging entries of the same rule and file.
void MergeDropped(std::vector<DroppedFindings>& into, const std::vector<DroppedFindings>& extra);

}  // namespace ckpt
