// Verdicts and exit codes: one definition used by every tool and report.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "engine/audit.h"

namespace ckpt {

/// --fail-on: findings at or above this severity fail; nullopt ("none") fails nothing.
using FailThreshold = std::optional<Severity>;
/// Parses "error|warning|note|none" into `out`; false for any other text.
[[nodiscard]] bool ParseFailThreshold(std::string_view text, FailThreshold& out);
std::string_view FailThresholdName(FailThreshold threshold);

enum class Verdict {
  kPass,   ///< no finding at or above the threshold
  kFail,   ///< at least one finding at or above the threshold
  kError,  ///< the tool could not audit it (I/O failure, path missing)
};
std::string_view VerdictName(Verdict verdict);  ///< "pass", "fail", "error"

bool AtOrAbove(Severity severity, FailThreshold threshold);
/// The severity verdicts are judged at: the threshold, or error with --fail-on none (the
/// verdict word follows the findings; only the exit status stops gating).
FailThreshold VerdictThreshold(FailThreshold threshold);
/// fail when a finding is at or above VerdictThreshold(threshold).
Verdict VerdictOf(const AuditResult& result, FailThreshold threshold);

/// Exit codes, documented in the README and --help.
inline constexpr int kExitClean = 0;      ///< nothing at or above the threshold
inline constexpr int kExitFindings = 1;   ///< findings at or above the threshold
inline constexpr int kExitToolError = 2;  ///< bad usage, missing path, nothing to audit, I/O or internal error

/// 2 if any artifact could not be audited, else 1 if any failed (never with --fail-on none), else 0.
int ExitCodeOf(std::span<const AuditResult> results, FailThreshold threshold);

/// Findings (kept and dropped) that count, by severity, and those the baseline suppressed.
struct SeverityCounts {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t notes = 0;
  std::size_t suppressed = 0;
};
SeverityCounts CountFindings(const AuditResult& result);

}  // namespace ckpt
