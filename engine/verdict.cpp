#include "engine/verdict.h"

namespace ckpt {

bool ParseFailThreshold(std::string_view text, FailThreshold& out) {
  if (text == "none") {
    out.reset();
    return true;
  }
  auto severity = ParseSeverity(text);
  if (!severity) return false;
  out = *severity;
  return true;
}

std::string_view FailThresholdName(FailThreshold threshold) { return threshold ? SeverityName(*threshold) : "none"; }

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kError:
      return "error";
  }
  return "error";
}

bool AtOrAbove(Severity severity, FailThreshold threshold) {
  return threshold && static_cast<int>(severity) >= static_cast<int>(*threshold);
}

FailThreshold VerdictThreshold(FailThreshold threshold) { return threshold ? threshold : Severity::kError; }

Verdict VerdictOf(const AuditResult& result, FailThreshold threshold) {
  if (!result.tool_errors.empty()) return Verdict::kError;
  for (const Finding& f : result.findings) {
    if (f.counts() && AtOrAbove(f.severity(), VerdictThreshold(threshold))) return Verdict::kFail;
  }
  for (const DroppedFindings& d : result.dropped) {
    if (d.counts() && AtOrAbove(d.severity(), VerdictThreshold(threshold))) return Verdict::kFail;
  }
  return Verdict::kPass;
}

int ExitCodeOf(std::span<const AuditResult> results, FailThreshold threshold) {
  if (results.empty()) return kExitToolError;
  int code = kExitClean;
  for (const AuditResult& r : results) {
    Verdict v = VerdictOf(r, threshold);
    if (v == Verdict::kError) return kExitToolError;
    if (v == Verdict::kFail && threshold) code = kExitFindings;
  }
  return code;
}

SeverityCounts CountFindings(const AuditResult& result) {
  SeverityCounts counts;
  auto add = [&](Severity severity, std::uint64_t n) {
    switch (severity) {
      case Severity::kError:
        counts.errors += n;
        break;
      case Severity::kWarning:
        counts.warnings += n;
        break;
      case Severity::kNote:
        counts.notes += n;
        break;
    }
  };
  for (const Finding& f : result.findings) {
    if (f.counts()) {
      add(f.severity(), 1);
    } else {
      ++counts.suppressed;
    }
  }
  for (const DroppedFindings& d : result.dropped) {
    if (d.counts()) {
      add(d.severity(), d.count);
    } else {
      counts.suppressed += d.count;
    }
  }
  return counts;
}

}  // namespace ckpt
