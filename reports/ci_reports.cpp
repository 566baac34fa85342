#include "reports/ci_reports.h"

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <map>

#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "lib/hashing/sha256.h"
#include "lib/remote/url.h"
#include "reports/chain_reports.h"
#include "reports/text_report.h"

namespace ckpt::reports {
namespace {

// One input (or the run) as a CI system sees it.
struct CiCase {
  std::string name;       ///< the input's path
  std::string classname;  ///< tool and kind, e.g. "ckpt-audit.lensemble"
  Verdict verdict = Verdict::kPass;
  std::string root;  ///< what findings' files are relative to
  std::vector<const Finding*> findings;
  std::vector<std::string> tool_errors;
};

std::string Count(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

void WriteJunit(std::ostream& out, const std::vector<CiCase>& cases, const ReportContext& context) {
  std::size_t failures = 0;
  std::size_t errors = 0;
  for (const CiCase& c : cases) {
    if (c.verdict == Verdict::kFail) ++failures;
    if (c.verdict == Verdict::kError) ++errors;
  }
  const std::string totals = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"" + std::to_string(errors) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"" << XmlEscape(context.tool_name) << "\"" << totals << " time=\"0\">\n"
      << "  <testsuite name=\"" << XmlEscape(context.tool_name) << "\"" << totals << " skipped=\"0\" time=\"0\">\n"
      << "    <properties>\n"
      << "      <property name=\"version\" value=\"" << XmlEscape(context.version) << "\"/>\n"
      << "      <property name=\"fail_on\" value=\"" << FailThresholdName(context.threshold) << "\"/>\n";
  if (context.policy) {
    const boost::json::object& rules = context.policy->at("rules").as_object();
    out << "      <property name=\"rules_fingerprint\" value=\"" << XmlEscape(rules.at("fingerprint").as_string())
        << "\"/>\n";
  }
  if (context.config_file) {
    out << "      <property name=\"config_file\" value=\"" << XmlEscape(EscapeForDisplay(*context.config_file))
        << "\"/>\n";
  }
  out << "    </properties>\n";
  for (const CiCase& c : cases) {
    out << "    <testcase name=\"" << XmlEscape(c.name) << "\" classname=\"" << XmlEscape(c.classname)
        << "\" time=\"0\">";
    std::string counted;
    std::string suppressed;
    std::string accepted;
    std::size_t counting = 0;
    for (const Finding* f : c.findings) {
      if (f->counts()) {
        counted += FindingLine(c.root, *f) + "\n";
      } else {
        (f->suppression->acceptance() ? accepted : suppressed) +=
            FindingLine(c.root, *f) + " (" + AcceptedWhy(*f->suppression) + ")\n";
      }
      // The failure message counts what fails the case: notes and warnings below --fail-on
      // are listed with it but are not failures.
      if (f->counts() && AtOrAbove(f->severity(), VerdictThreshold(context.threshold))) ++counting;
    }
    if (c.verdict == Verdict::kError) {
      std::string text;
      for (const std::string& e : c.tool_errors) text += EscapeForDisplay(e) + "\n";
      out << "\n      <error type=\"tool-error\" message=\"the input could not be audited\">" << XmlEscape(text)
          << "</error>";
    } else if (c.verdict == Verdict::kFail) {
      out << "\n      <failure type=\"" << FailThresholdName(VerdictThreshold(context.threshold)) << "\" message=\""
          << XmlEscape(Count(counting, "finding")) << " at or above "
          << FailThresholdName(VerdictThreshold(context.threshold)) << "\">" << XmlEscape(counted) << "</failure>";
    }
    // What passes still says what it found (warnings, notes) and what the baseline accepted.
    std::string notes = c.verdict == Verdict::kFail ? std::string() : counted;
    if (!suppressed.empty()) notes += "suppressed by the baseline:\n" + suppressed;
    if (!accepted.empty()) notes += "accepted by a reviewed acceptance:\n" + accepted;
    if (!notes.empty()) out << "\n      <system-out>" << XmlEscape(notes) << "</system-out>";
    out << (c.verdict == Verdict::kPass && notes.empty() ? "" : "\n    ") << "</testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

// GitLab shows paths relative to the repository: the working directory the job runs in.
std::string RepositoryPath(const std::string& path) {
  // A remote file's location is its redacted absolute URL (remote.md section 9).
  if (remote::IsRemoteArgument(path)) return path;
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  if (p.is_absolute()) {
    std::error_code ec;
    const std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (!ec) {
      const std::filesystem::path relative = p.lexically_relative(cwd);
      if (!relative.empty()) p = relative;
    }
  }
  return p.generic_string();
}

// GitLab's severities: info, minor, major, critical, blocker.
std::string_view GitlabSeverity(const Finding& f) {
  switch (f.severity()) {
    case Severity::kError:
      return f.rule->security ? "critical" : "major";
    case Severity::kWarning:
      return "minor";
    case Severity::kNote:
      return "info";
  }
  return "info";
}

void WriteGitlab(std::ostream& out, const std::vector<CiCase>& cases, const ReportContext& context) {
  boost::json::array issues;
  std::map<std::string, int> seen;  // fingerprints must be unique in one report
  for (const CiCase& c : cases) {
    for (const Finding* f : c.findings) {
      // Accepted by the baseline: not a merge-request comment. A reviewed acceptance's finding
      // (security findings among them) stays listed, as info, saying who accepted it.
      if (!f->counts() && !f->suppression->acceptance()) continue;
      const std::string path = ReportedPath(c.root, f->location);
      std::string key = std::string(f->rule->id) + '\0' + path + '\0' + f->location.json_pointer.value_or("") + '\0' +
                        f->location.tensor.value_or("") + '\0' + f->message;
      const int repeat = seen[key]++;
      if (repeat > 0) key += '\0' + std::to_string(repeat);
      Sha256 sha;
      sha.Update(key);
      boost::json::object issue{
          {"type", "issue"},
          {"check_name", f->rule->id},
          {"description", EscapeForDisplay(f->message) + " [" + std::string(f->rule->id) + "]" +
                              (f->counts() ? std::string() : " (" + AcceptedWhy(*f->suppression) + ")")},
          {"categories", boost::json::array{f->rule->security ? "Security" : "Bug Risk"}},
          {"severity", f->counts() ? GitlabSeverity(*f) : std::string_view("info")},
          {"fingerprint", sha.FinalHex()},
          {"location",
           {{"path", EscapeForDisplay(RepositoryPath(path))}, {"lines", {{"begin", f->location.line.value_or(1)}}}}}};
      issues.push_back(std::move(issue));
    }
  }
  (void)context;
  out << boost::json::serialize(issues) << "\n";
}

std::string Classname(const ReportContext& context, InputKind kind) {
  return context.tool_name + "." + std::string(InputKindName(kind));
}

std::vector<CiCase> AuditCases(std::span<const AuditResult> results, const ReportContext& context) {
  std::vector<CiCase> cases;
  for (const AuditResult& r : results) {
    CiCase c{r.artifact.path, Classname(context, r.artifact.kind), VerdictOf(r, context.threshold), r.artifact.path, {},
             r.tool_errors};
    for (const Finding& f : r.findings) c.findings.push_back(&f);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<CiCase> ChainCases(const ChainRun& run, const ReportContext& context) {
  std::vector<CiCase> cases;
  for (std::size_t i : run.history) {
    const ChainNode& n = run.graph.nodes[i];
    CiCase c{n.path, Classname(context, n.kind), NodeVerdict(run, i, context.threshold), n.path, {}, n.tool_errors};
    for (const Finding& f : n.audit_findings) c.findings.push_back(&f);
    for (const ChainFinding& f : run.findings) {
      if (f.node == i) c.findings.push_back(&f.finding);
    }
    cases.push_back(std::move(c));
  }
  // Findings about the history as a whole (a missing genesis, a cycle) are one more case.
  CiCase history{"history", context.tool_name + ".history", Verdict::kPass, "", {}, run.discovery_errors};
  for (const ChainFinding& f : run.findings) {
    if (f.node) continue;
    history.findings.push_back(&f.finding);
    if (f.finding.counts() && AtOrAbove(f.finding.severity(), VerdictThreshold(context.threshold))) {
      history.verdict = Verdict::kFail;
    }
  }
  if (!run.discovery_errors.empty()) history.verdict = Verdict::kError;
  cases.push_back(std::move(history));
  return cases;
}

std::vector<CiCase> DiffCases(const DiffRun& run, const ReportContext& context) {
  std::vector<CiCase> cases = AuditCases(std::span<const AuditResult>(&run.a, 1), context);
  for (CiCase& c : AuditCases(std::span<const AuditResult>(&run.b, 1), context)) cases.push_back(std::move(c));
  CiCase gates{run.a.artifact.path + " -> " + run.b.artifact.path,
               context.tool_name + ".gates",
               Verdict::kPass,
               run.b.artifact.path,
               {},
               {}};
  for (const Finding& f : run.findings) {
    gates.findings.push_back(&f);
    if (f.counts() && AtOrAbove(f.severity(), VerdictThreshold(context.threshold))) gates.verdict = Verdict::kFail;
  }
  cases.push_back(std::move(gates));
  return cases;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  // Line by line: the lines stay lines, anything else that is not text is escaped for display.
  std::string shown;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    shown += EscapeForDisplay(text.substr(at, end - at));
    if (end < text.size()) shown.push_back('\n');
    at = end + 1;
  }
  return EscapeMarkup(shown);
}

void WriteAuditJunit(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  WriteJunit(out, AuditCases(results, context), context);
}
void WriteChainJunit(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  WriteJunit(out, ChainCases(run, context), context);
}
void WriteDiffJunit(std::ostream& out, const DiffRun& run, const ReportContext& context) {
  WriteJunit(out, DiffCases(run, context), context);
}
void WriteAuditGitlab(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  WriteGitlab(out, AuditCases(results, context), context);
}
void WriteChainGitlab(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  // A flat list of issues: root cause first, as every chain report lists them.
  std::vector<CiCase> by_cause;
  for (const PlacedFinding& p : ChainFindingsByCause(run)) {
    const std::string root = p.node ? run.graph.nodes[*p.node].path : "";
    by_cause.push_back({root, context.tool_name, Verdict::kFail, root, {p.finding}, {}});
  }
  WriteGitlab(out, by_cause, context);
}
void WriteDiffGitlab(std::ostream& out, const DiffRun& run, const ReportContext& context) {
  WriteGitlab(out, DiffCases(run, context), context);
}

namespace {

// Text from the input as Markdown shows it literally: each character that can start markup
// backslash-escaped (emphasis, code, links, HTML, entities, tables, lists, and ':' and '@' so
// no URL or address becomes a link), control characters already escaped.
std::string MarkdownText(std::string_view text) {
  constexpr std::string_view kMarkup = "\\`*_{}[]()<>#+-.!|~&:@";
  const std::string shown = EscapeForDisplay(text);
  std::string out;
  out.reserve(shown.size() + shown.size() / 4);
  for (const char c : shown) {
    if (kMarkup.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

namespace {

// A workflow command's text: '%', CR and LF encoded as the runner decodes them, control
// characters already escaped, so no input can end the line or start another command; in a
// property value (file=, title=) ':' and ',' end it, so they are encoded too.
std::string CommandText(std::string_view text, bool property) {
  std::string out;
  for (const char c : EscapeForDisplay(text)) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}
std::string CommandData(std::string_view text) { return CommandText(text, false); }
std::string CommandProperty(std::string_view text) { return CommandText(text, true); }

}  // namespace

void WriteAuditGithub(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  constexpr std::size_t kShown = 50;  // GitHub shows at most 50 annotations of a job
  std::size_t shown = 0;
  std::size_t more = 0;
  for (const CiCase& c : AuditCases(results, context)) {
    for (const std::string& error : c.tool_errors) {
      out << "::error title=" << CommandProperty(context.tool_name + " tool error")
          << "::" << CommandData(c.name + ": " + error) << "\n";
    }
    for (const Finding* f : c.findings) {
      if (!f->counts()) continue;  // accepted: not a red mark on the pull request
      if (shown == kShown) {
        ++more;
        continue;
      }
      ++shown;
      const std::string_view command = f->severity() == Severity::kError     ? "error"
                                       : f->severity() == Severity::kWarning ? "warning"
                                                                             : "notice";
      out << "::" << command << " file=" << CommandProperty(RepositoryPath(ReportedPath(c.root, f->location)));
      if (f->location.line) out << ",line=" << *f->location.line;
      if (f->location.column) out << ",col=" << *f->location.column;
      out << ",title=" << CommandProperty(context.tool_name + " " + std::string(f->rule->id))
          << "::" << CommandData(f->message + " [" + std::string(f->rule->id) + "]") << "\n";
    }
  }
  if (more > 0) {
    out << "::notice title=" << CommandProperty(context.tool_name) << "::" << more
        << " more findings are not annotated here (GitHub shows 50 a job); the SARIF and text reports list them\n";
  }
}

void WriteAuditMarkdown(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  std::size_t failed = 0;
  for (const AuditResult& r : results) {
    if (VerdictOf(r, context.threshold) != Verdict::kPass) ++failed;
  }
  out << "### " << MarkdownText(context.tool_name) << ": "
      << (failed == 0 ? "every input passed"
                      : std::to_string(failed) + " of " + std::to_string(results.size()) +
                            (results.size() == 1 ? " input" : " inputs") + " failed")
      << "\n\n";
  out << "| input | verdict | errors | warnings | notes | kind |\n|---|---|---:|---:|---:|---|\n";
  for (const AuditResult& r : results) {
    const Verdict verdict = VerdictOf(r, context.threshold);
    const SeverityCounts counts = CountFindings(r);
    out << "| " << MarkdownText(r.artifact.path) << " | "
        << (verdict == Verdict::kPass   ? "PASS"
            : verdict == Verdict::kFail ? "**FAIL**"
                                        : "**ERROR**")
        << " | " << counts.errors << " | " << counts.warnings << " | " << counts.notes << " | "
        << InputKindName(r.artifact.kind) << " |\n";
  }
  std::string counting;
  std::string accepted;
  constexpr std::size_t kMaxShown = 200;  // a job summary holds 1 MiB; the JSON report has them all
  std::size_t total = 0;                  // counting findings, shown or not
  for (const AuditResult& r : results) {
    for (const Finding& f : r.findings) {
      auto line = [&] { return "- " + MarkdownText(FindingLine(r.artifact.path, f)); };  // only when shown
      if (!f.counts()) {
        accepted += line() + " (" + MarkdownText(AcceptedWhy(*f.suppression)) + ")\n";
      } else if (++total <= kMaxShown) {
        counting += line() + "\n";
      }
    }
    for (const std::string& e : r.tool_errors) counting += "- tool error: " + MarkdownText(e) + "\n";
  }
  if (!counting.empty()) out << "\n#### Findings\n\n" << counting;
  if (total > kMaxShown) out << "- ... and " << total - kMaxShown << " more (see the JSON or SARIF report)\n";
  if (!accepted.empty()) {
    out << "\n<details><summary>Accepted by the baseline or a reviewed acceptance</summary>\n\n"
        << accepted << "\n</details>\n";
  }
  out << "\n"
      << MarkdownText(ThresholdText(context.threshold)) << "; " << MarkdownText(context.tool_name) << " "
      << MarkdownText(context.version);
  if (context.config_file) out << "; config " << MarkdownText(*context.config_file);
  out << "\n";
}

}  // namespace ckpt::reports
