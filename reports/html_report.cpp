#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "lib/core/text.h"
#include "reports/chain_reports.h"
#include "reports/diff_reports.h"
#include "reports/json_report.h"
#include "reports/text_report.h"

namespace ckpt::reports {
namespace {

// Findings listed per rule before the rest are only counted: a page stays readable and
// bounded whatever the input holds.
constexpr std::size_t kShownPerRule = 200;

constexpr const char* kStyle = R"(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #1d1d1f; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
code, .mono, td.num { font-family: ui-monospace, monospace; }
.summary { font-size: 15px; padding: 12px 16px; border-radius: 8px; background: #f4f6f8; }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; }
.pass { background: #d4edda; color: #1e5a2c; }
.fail { background: #f8d7da; color: #8a1c24; }
.error { background: #e2e3e5; color: #333; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
th { font-weight: 600; border-bottom: 1px solid #ccc; }
td.num { text-align: right; }
details.rule { margin: 10px 0; border: 1px solid #ddd; border-radius: 8px; padding: 6px 12px; }
details.rule > summary { cursor: pointer; font-weight: 600; }
.sev { display: inline-block; min-width: 58px; padding: 0 6px; border-radius: 4px; font-size: 12px; text-align: center; }
.sev-error { background: #c0392b; color: #fff; }
.sev-warning { background: #e67e22; color: #fff; }
.sev-note { background: #7f8c8d; color: #fff; }
.sev-accepted { background: #dfe6e9; color: #2d3436; }
.explain { color: #333; margin: 6px 0; }
.remedy { color: #1e5a2c; margin: 6px 0; }
.suppressed { color: #888; }
ul.findings { margin: 4px 0 4px 18px; padding: 0; }
ul.findings li { margin: 2px 0; }
.bar { display: inline-block; width: 240px; height: 10px; background: #eee; border-radius: 3px; vertical-align: middle; }
.bar > span { display: block; height: 10px; background: #2e86c1; border-radius: 3px; }
.bar.frozen > span { background: #c0392b; }
.picture svg { max-width: 100%; height: auto; }
table.rounds td { white-space: nowrap; }
tr.gate > td { background: #fdecea; }
tr.gate > td:first-child { box-shadow: inset 4px 0 0 #c0392b; }
tr.missing > td { color: #8a1c24; }
.scale { color: #555; font-size: 12px; margin: 2px 0 10px; }
.story { font-size: 16px; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
)";

std::string VerdictBadge(Verdict v) {
  const std::string name(VerdictName(v));
  return "<span class=\"verdict " + name + "\">" + name + "</span>";
}

// The page's overall verdict, from the tool's documented exit status.
std::string ExitBadge(int exit_code) {
  return VerdictBadge(exit_code == 0 ? Verdict::kPass : exit_code == 1 ? Verdict::kFail : Verdict::kError);
}

void BeginPage(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<link rel=\"icon\" href=\"data:,\">\n<title>"
      << HtmlEscape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << HtmlEscape(title)
      << "</h1>\n";
}

void EndPage(std::ostream& out, const ReportContext& context) {
  out << "<footer>" << HtmlEscape(context.tool_name) << " " << HtmlEscape(context.version) << " &middot; "
      << HtmlEscape(ThresholdText(context.threshold)) << "</footer>\n</body>\n</html>\n";
}

// A finding with the path it is reported under.
struct Listed {
  const Finding* finding = nullptr;
  std::string artifact;
};
struct DroppedListed {
  const DroppedFindings* dropped = nullptr;
  std::string artifact;
};

int SeverityRank(Severity s) { return s == Severity::kError ? 0 : s == Severity::kWarning ? 1 : 2; }

// Findings grouped by rule: those that count first (errors, then warnings and notes, each
// group by rule id), then those a baseline or a reviewed acceptance accepts, under a grey
// "accepted" mark and folded: a page must not open with accepted findings under red headers.
void FindingsByRule(std::ostream& out, const std::vector<Listed>& findings, const std::vector<DroppedListed>& dropped) {
  struct Group {
    const RuleInfo* rule = nullptr;
    Severity severity = Severity::kNote;
    bool accepted = false;
    std::vector<const Listed*> items;
    std::vector<const DroppedListed*> dropped;
  };
  std::map<std::tuple<bool, int, std::string_view>, Group> groups;
  for (const Listed& l : findings) {
    const bool accepted = !l.finding->counts();
    Group& g = groups[{accepted, SeverityRank(l.finding->severity()), l.finding->rule->id}];
    g.rule = l.finding->rule;
    g.severity = l.finding->severity();
    g.accepted = accepted;
    g.items.push_back(&l);
  }
  for (const DroppedListed& d : dropped) {
    const bool accepted = !d.dropped->counts();
    Group& g = groups[{accepted, SeverityRank(d.dropped->severity()), d.dropped->rule->id}];
    g.rule = d.dropped->rule;
    g.severity = d.dropped->severity();
    g.accepted = accepted;
    g.dropped.push_back(&d);
  }
  out << "<h2>Findings by rule</h2>\n";
  if (groups.empty()) {
    out << "<p>No findings.</p>\n";
    return;
  }
  for (const auto& [key, g] : groups) {
    std::uint64_t total = g.items.size();
    for (const DroppedListed* d : g.dropped) total += d->dropped->count;
    const std::string severity(SeverityName(g.severity));
    out << "<details class=\"rule\"" << (g.accepted ? "" : " open") << ">\n<summary><span class=\"sev sev-"
        << (g.accepted ? "accepted" : severity) << "\">" << (g.accepted ? "accepted" : severity) << "</span> <code>"
        << HtmlEscape(g.rule->id) << "</code> " << HtmlEscape(CodeName(g.rule->code)) << " &mdash; "
        << HtmlEscape(g.rule->title) << " (" << total << (g.accepted ? " " + severity + (total == 1 ? "" : "s") : "")
        << ")</summary>\n<p class=\"explain\">" << HtmlEscape(g.rule->explanation)
        << "</p>\n<p class=\"remedy\"><b>Remediation:</b> " << HtmlEscape(g.rule->remediation)
        << "</p>\n<ul class=\"findings\">\n";
    std::size_t shown = 0;
    for (const Listed* l : g.items) {
      if (shown++ == kShownPerRule) break;
      const Finding& f = *l->finding;
      out << "<li" << (f.counts() ? "" : " class=\"suppressed\"") << "><code>"
          << HtmlEscape(FormatLocation(l->artifact, f.location)) << "</code> " << HtmlEscape(f.message);
      if (!f.counts()) {
        out << " <i>(" << (f.suppression->acceptance() ? "" : "suppressed by the baseline, ")
            << HtmlEscape(AcceptedWhy(*f.suppression)) << ")</i>";
      }
      out << "</li>\n";
    }
    if (g.items.size() > kShownPerRule) {
      out << "<li>&hellip; and " << g.items.size() - kShownPerRule
          << " more, not shown here (see the JSON report)</li>\n";
    }
    for (const DroppedListed* d : g.dropped) {
      out << "<li><code>" << HtmlEscape(d->artifact) << "</code> " << HtmlEscape(DroppedLine(*d->dropped)) << "</li>\n";
    }
    out << "</ul>\n</details>\n";
  }
}

void CountCells(std::ostream& out, const SeverityCounts& c) {
  out << "<td class=\"num\">" << c.errors << "</td><td class=\"num\">" << c.warnings << "</td><td class=\"num\">"
      << c.notes << "</td><td class=\"num\">" << c.suppressed << "</td>";
}

void ToolErrors(std::ostream& out, const std::vector<std::string>& errors, const std::string& where) {
  for (const std::string& e : errors) {
    out << "<p class=\"verdict error\">tool error" << (where.empty() ? "" : " (" + HtmlEscape(where) + ")") << ": "
        << HtmlEscape(e) << "</p>\n";
  }
}

// Decades a bar spans: relative changes of one round range over many orders of magnitude.
constexpr double kBarDecades = 6;

// A bar for `value` on a log scale whose right end is `max` and left end kBarDecades below
// (both finite, >= 0; 0 is an empty bar).
std::string Bar(double value, double max, bool frozen = false) {
  double share = 0;
  if (max > 0 && value > 0 && std::isfinite(value)) {
    share = std::clamp((std::log10(value) - std::log10(max)) / kBarDecades + 1.0, 0.02, 1.0);
  }
  char width[16];
  std::snprintf(width, sizeof width, "%.1f", share * 100);
  return std::string("<span class=\"bar") + (frozen ? " frozen" : "") + "\"><span style=\"width:" + width +
         "%\"></span></span>";
}

// A value as a share of the largest, on a linear scale: "3.1% of the largest".
std::string LinearShare(double value, double max) {
  if (!(max > 0) || !std::isfinite(value)) return "";
  const double percent = 100 * value / max;
  if (value > 0 && percent < 0.01) return "&lt; 0.01% of the largest";  // markup: the caller writes it as is
  char text[48];
  std::snprintf(text, sizeof text, "%.3g%% of the largest", percent);
  return text;
}

// What the bars' ends stand for, under each table of bars.
void ScaleLegend(std::ostream& out, double max) {
  if (!(max > 0)) return;
  out << "<p class=\"scale\">Bars: log scale over " << static_cast<int>(kBarDecades) << " decades, left edge "
      << FormatNumber(max / std::pow(10.0, kBarDecades)) << ", right edge " << FormatNumber(max)
      << " (the largest here); so a bar half full is " << FormatNumber(max / std::pow(10.0, kBarDecades / 2))
      << ", a thousandth of the largest. The percentage beside it is the linear share.</p>\n";
}

void RollupBars(std::ostream& out, const char* title, const std::vector<DiffRollup>& rollups) {
  double max = 0;
  for (const DiffRollup& r : rollups) {
    if (auto rel = r.rel_l2()) max = std::max(max, std::isfinite(*rel) ? *rel : 0.0);
  }
  out << "<table>\n<tr><th>" << title
      << "</th><th>tensors</th><th>changed</th><th>other</th><th>l2</th><th>rel_l2</th><th>rel_l2 (log scale, 6 "
         "decades)</th><th>linear</th></tr>\n";
  for (const DiffRollup& r : rollups) {
    const auto rel = r.rel_l2();
    out << "<tr><td><code>" << HtmlEscape(r.key.empty() ? "(none)" : r.key) << "</code></td><td class=\"num\">"
        << r.tensors << "</td><td class=\"num\">" << r.count(TensorStatus::kChanged) << "</td><td class=\"num\">"
        << r.others() << "</td><td class=\"num\">" << FormatNumber(r.l2()) << "</td><td class=\"num\">"
        << FormatRelL2(rel, r.l2()) << "</td><td>" << (rel ? Bar(*rel, max) : "") << "</td><td class=\"num\">"
        << (rel ? LinearShare(*rel, max) : "") << "</td></tr>\n";
  }
  out << "</table>\n";
  ScaleLegend(out, max);
}

// A row a gate finding is about is marked (and says which rules) in every diff table.
std::string GateClass(const std::map<std::string, std::vector<std::string>>& gates, const std::string& tensor) {
  return gates.count(tensor) ? " class=\"gate\"" : "";
}

}  // namespace

std::string HtmlEscape(std::string_view text) { return EscapeMarkup(EscapeForDisplay(text)); }

namespace {

std::string GateCell(const std::map<std::string, std::vector<std::string>>& gates, const std::string& tensor) {
  auto it = gates.find(tensor);
  if (it == gates.end()) return "";
  std::string cell = "<span class=\"sev sev-error\">broke</span>";
  for (const std::string& rule : it->second) cell += " <code>" + HtmlEscape(rule) + "</code>";
  return cell;
}

}  // namespace

namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '-' ||
         c == '_' || c == '.';
}

// Whether SVG markup holds only what a picture needs: no element that runs or embeds
// something, no event-handler attribute, no link leaving the document. Scans the tags only:
// text and attribute values (where Graphviz put the escaped labels) are not markup.
bool PictureOnly(std::string_view svg) {
  std::size_t i = 0;
  while ((i = svg.find('<', i)) != std::string_view::npos) {
    ++i;
    if (svg.substr(i, 3) == "!--") {
      i = svg.find("-->", i);
      if (i == std::string_view::npos) return false;
      continue;
    }
    if (i < svg.size() && (svg[i] == '/' || svg[i] == '?' || svg[i] == '!')) {
      i = svg.find('>', i);
      if (i == std::string_view::npos) return false;
      continue;
    }
    std::size_t end = i;
    while (end < svg.size() && NameChar(svg[end])) ++end;
    std::string element;
    for (char c : svg.substr(i, end - i)) element.push_back(LowerAscii(c));
    for (const char* banned : {"script", "foreignobject", "iframe", "use", "image", "animate", "set", "style",
                               "handler", "listener", "object", "embed"}) {
      if (element == banned) return false;
    }
    i = end;
    while (i < svg.size() && svg[i] != '>') {
      if (!NameChar(svg[i])) {
        ++i;
        continue;
      }
      std::size_t name_end = i;
      while (name_end < svg.size() && NameChar(svg[name_end])) ++name_end;
      std::string attribute;
      for (char c : svg.substr(i, name_end - i)) attribute.push_back(LowerAscii(c));
      i = name_end;
      std::string value;
      if (i < svg.size() && svg[i] == '=') {
        ++i;
        if (i < svg.size() && (svg[i] == '"' || svg[i] == '\'')) {
          const std::size_t close = svg.find(svg[i], i + 1);
          if (close == std::string_view::npos) return false;
          value = std::string(svg.substr(i + 1, close - i - 1));
          i = close + 1;
        } else {
          while (i < svg.size() && svg[i] != ' ' && svg[i] != '>') value.push_back(svg[i++]);
        }
      }
      if (attribute.starts_with("on")) return false;
      if (attribute.ends_with("href") && !value.starts_with("#")) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> InlineSvg(std::string_view graphviz_svg) {
  const std::size_t start = graphviz_svg.find("<svg");
  const std::size_t end = graphviz_svg.rfind("</svg>");
  if (start == std::string_view::npos || end == std::string_view::npos || end < start) return std::nullopt;
  std::string svg(graphviz_svg.substr(start, end + 6 - start));
  if (!PictureOnly(svg)) return std::nullopt;
  return svg;
}

void WriteAuditHtml(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  BeginPage(out, context.tool_name + " report");
  const int exit_code = ExitCodeOf(results, context.threshold);
  std::size_t passed = 0;
  for (const AuditResult& r : results) passed += VerdictOf(r, context.threshold) == Verdict::kPass ? 1U : 0U;
  out << "<div class=\"summary\">" << ExitBadge(exit_code) << " " << passed << " of " << Plural(results.size(), "input")
      << " passed (exit status " << exit_code << ")</div>\n";
  out << "<h2>Inputs</h2>\n<table>\n<tr><th>verdict</th><th>input</th><th>kind</th><th>errors</th><th>warnings</th>"
         "<th>notes</th><th>suppressed</th></tr>\n";
  std::vector<Listed> findings;
  std::vector<DroppedListed> dropped;
  for (const AuditResult& r : results) {
    out << "<tr><td>" << VerdictBadge(VerdictOf(r, context.threshold)) << "</td><td><code>"
        << HtmlEscape(r.artifact.path) << "</code></td><td>" << HtmlEscape(InputKindName(r.artifact.kind)) << "</td>";
    CountCells(out, CountFindings(r));
    out << "</tr>\n";
    for (const Finding& f : r.findings) findings.push_back({&f, r.artifact.path});
    for (const DroppedFindings& d : r.dropped) dropped.push_back({&d, r.artifact.path});
  }
  out << "</table>\n";
  for (const AuditResult& r : results) {
    if (!r.model_signature) continue;
    out << "<p class=\"model-signature\">Model signature of <code>" << HtmlEscape(r.artifact.path)
        << "</code>: " << HtmlEscape(ModelSignatureLine(*r.model_signature)) << "</p>\n";
  }
  for (const AuditResult& r : results) {
    if (!r.verification) continue;
    out << "<h2>Checks performed</h2>\n<p>On <code>" << HtmlEscape(r.artifact.path) << "</code> with <code>"
        << HtmlEscape(r.verification->envelope) << "</code>:</p>\n<ul class=\"checks\">\n";
    for (const std::string& line : VerificationLines(*r.verification)) out << "<li>" << HtmlEscape(line) << "</li>\n";
    out << "</ul>\n";
  }
  for (const AuditResult& r : results) ToolErrors(out, r.tool_errors, r.artifact.path);
  FindingsByRule(out, findings, dropped);
  EndPage(out, context);
}

void WriteDiffHtml(std::ostream& out, const DiffRun& run, const ReportContext& context) {
  BeginPage(out, context.tool_name + " report");
  const int exit_code = DiffExitCode(run, context.threshold);
  const DiffSummary summary = SummarizeDiff(run.tensors, run.options.rollup_depth, run.options.top);
  const DiffRollup& m = summary.model;
  // The tensors a gate finding is about, with the rules that broke: marked in every table.
  std::map<std::string, std::vector<std::string>> gates;
  for (const Finding& f : run.findings) {
    if (f.counts() && f.location.tensor) gates[*f.location.tensor].emplace_back(f.rule->id);
  }
  out << "<div class=\"summary\">" << ExitBadge(exit_code) << " A <code>" << HtmlEscape(run.a.artifact.path)
      << "</code> &rarr; B <code>" << HtmlEscape(run.b.artifact.path) << "</code><br>" << StatusCounts(m);
  out << "<br>whole model: l2 " << FormatNumber(m.l2()) << ", rel_l2 " << FormatRelL2(m.rel_l2(), m.l2())
      << ", max_abs " << FormatNumber(m.max_abs) << " (" << m.changed_elements << " of " << m.compared_elements
      << " compared elements changed)";
  const bool lensemble =
      InputKinds::Lensemble().Has(run.a.artifact.kind) && InputKinds::Lensemble().Has(run.b.artifact.kind);
  if (lensemble) out << "<br>B " << (run.link.is_child() ? "is" : "is <b>not</b>") << " the child of A";
  out << "<br>exit status " << exit_code << "</div>\n";

  if (!summary.groups.empty()) {
    out << "<h2>By group</h2>\n";
    RollupBars(out, "group", summary.groups);
  }
  if (!summary.prefixes.empty()) {
    out << "<h2>By name prefix (" << summary.rollup_depth << " components)</h2>\n";
    RollupBars(out, "prefix", summary.prefixes);
  }
  if (!summary.top.empty()) {
    double max = 0;
    for (const TensorDiff* t : summary.top) {
      if (t->stats && t->stats->rel_l2() && std::isfinite(*t->stats->rel_l2()))
        max = std::max(max, *t->stats->rel_l2());
    }
    out << "<h2>Moved most</h2>\n<table>\n<tr><th>tensor</th><th>rel_l2</th><th>changed/numel</th><th>rel_l2 (log "
           "scale, 6 decades)</th><th>linear</th><th>gate</th></tr>\n";
    for (const TensorDiff* t : summary.top) {
      // Unmeasurable, non-finite and infinite (A is zero) changes lead the list: a full red bar.
      const bool measured = t->stats && t->stats->rel_l2() && t->stats->non_finite_pairs == 0;
      const double r = measured ? *t->stats->rel_l2() : 0;
      out << "<tr" << GateClass(gates, t->name) << "><td><code>" << HtmlEscape(t->name)
          << "</code></td><td class=\"num\">"
          << (measured                                 ? FormatNumber(r)
              : t->stats && t->stats->non_finite_pairs ? "NaN/Inf"
              : t->stats                               ? "inf (A is zero)"
                                                       : "unmeasured")
          << "</td><td class=\"num\">"
          << (t->stats ? std::to_string(t->stats->changed) + "/" + std::to_string(t->stats->numel) : "-") << "</td><td>"
          << (measured ? Bar(r, max) : Bar(1, 1, true)) << "</td><td class=\"num\">"
          << (measured ? LinearShare(r, max) : "") << "</td><td>" << GateCell(gates, t->name) << "</td></tr>\n";
    }
    out << "</table>\n";
    ScaleLegend(out, max);
  }
  std::vector<Listed> findings;
  std::vector<DroppedListed> dropped;
  for (const AuditResult* r : {&run.a, &run.b}) {
    for (const Finding& f : r->findings) findings.push_back({&f, r->artifact.path});
    for (const DroppedFindings& d : r->dropped) dropped.push_back({&d, r->artifact.path});
  }
  for (const Finding& f : run.findings) findings.push_back({&f, run.b.artifact.path});
  for (const DroppedFindings& d : run.dropped) dropped.push_back({&d, run.b.artifact.path});
  ToolErrors(out, run.a.tool_errors, run.a.artifact.path);
  ToolErrors(out, run.b.tool_errors, run.b.artifact.path);
  FindingsByRule(out, findings, dropped);

  const std::vector<const TensorDiff*> listed = ListedTensors(run);
  out << "<h2>Tensors</h2>\n<table>\n<tr><th>status</th><th>rel_l2</th><th>max_abs</th><th>changed/numel</th>"
         "<th>name</th><th>gate</th></tr>\n";
  for (const TensorDiff* t : listed) {
    out << "<tr" << GateClass(gates, t->name) << "><td>" << TensorStatusName(t->status) << "</td>";
    if (t->stats) {
      out << "<td class=\"num\">" << FormatRelL2(t->stats->rel_l2(), t->stats->l2()) << "</td><td class=\"num\">"
          << FormatNumber(t->stats->max_abs) << "</td><td class=\"num\">" << t->stats->changed << "/" << t->stats->numel
          << "</td>";
    } else {
      out << "<td></td><td></td><td></td>";
    }
    out << "<td><code>" << HtmlEscape(t->name) << "</code></td><td>" << GateCell(gates, t->name) << "</td></tr>\n";
  }
  out << "</table>\n";
  if (listed.size() < run.tensors.size()) {
    out << "<p>" << Plural(run.tensors.size() - listed.size(), "tensor") << " not listed ("
        << (run.options.top_given ? "--top" : "--changed-only") << ").</p>\n";
  }
  EndPage(out, context);
}

void WriteChainHtml(std::ostream& out, const ChainRun& run, const ReportContext& context,
                    const std::optional<std::string>& svg) {
  BeginPage(out, context.tool_name + " report");
  const ChainGraph& g = run.graph;
  const int exit_code = ChainExitCode(run, context.threshold);
  const ChainStory story = TellChainStory(run, context.threshold);
  out << "<div class=\"summary\">" << ExitBadge(exit_code) << " ";
  if (!story.line.empty()) out << "<b class=\"story\">" << HtmlEscape(story.line) << "</b><br>";
  out << HtmlEscape(ChainSummaryLine(run, context)) << " (exit status " << exit_code << ")</div>\n";
  const std::vector<PlacedFinding> by_cause = ChainFindingsByCause(run);
  std::size_t counted = 0;
  for (const PlacedFinding& p : by_cause) counted += p.finding->counts() ? 1U : 0U;
  if (counted > 0) {
    // What to read first: every finding that counts, root cause first, each in its round.
    out << "<h2>Findings, root cause first</h2>\n<ol class=\"findings causes\">\n";
    std::size_t shown = 0;
    for (const PlacedFinding& p : by_cause) {
      if (!p.finding->counts()) continue;
      if (shown++ == kShownPerRule) {
        out << "<li>&hellip; and " << counted - kShownPerRule << " more, listed by rule below</li>\n";
        break;
      }
      const Finding& f = *p.finding;
      const std::string severity(SeverityName(f.severity()));
      const std::string artifact = p.node ? g.nodes[*p.node].path : "";
      out << "<li><span class=\"sev sev-" << severity << "\">" << severity << "</span> ";
      if (p.node) out << "round " << HtmlEscape(RoundLabel(g.nodes[*p.node])) << " ";
      out << "<code>" << HtmlEscape(f.rule->id) << "</code> <code>" << HtmlEscape(FormatLocation(artifact, f.location))
          << "</code> " << HtmlEscape(f.message) << "</li>\n";
    }
    out << "</ol>\n";
  }
  if (svg) out << "<h2>History</h2>\n<div class=\"picture\">\n" << *svg << "\n</div>\n";
  out << "<h2>Rounds</h2>\n<table "
         "class=\"rounds\">\n<tr><th>round</th><th>hash</th><th>parent</th><th>schema</th><th>wmcp</th>"
         "<th>created_at</th><th>verdict</th><th>why</th><th>path</th></tr>\n";
  auto opt = [](const std::optional<std::string>& v, std::size_t chars) {
    return v ? HtmlEscape(v->substr(0, chars)) : std::string("-");
  };
  const std::map<std::uint64_t, std::uint64_t> missing = MissingRoundRuns(run);
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    if (n.round_index) {
      auto gap = missing.upper_bound(*n.round_index);
      if (gap != missing.begin() && std::prev(gap)->second + 1 == *n.round_index) {
        --gap;
        for (std::uint64_t r = gap->first; r <= gap->second; ++r) {
          if (r - gap->first == kShownPerRule) {
            out << "<tr class=\"missing\"><td class=\"num\">" << r << "-" << gap->second
                << "</td><td colspan=\"8\">missing: no artifact in the set</td></tr>\n";
            break;
          }
          out << "<tr class=\"missing\"><td class=\"num\">" << r
              << "</td><td colspan=\"5\"><i>missing: no artifact in the set</i></td><td><span class=\"verdict "
                 "fail\">missing</span></td><td><code>chain-gap</code></td><td></td></tr>\n";
        }
      }
    }
    const std::string why = FirstFailingRule(run, i, context.threshold);
    out << "<tr><td class=\"num\">" << HtmlEscape(RoundLabel(n)) << "</td><td><code>"
        << opt(n.ShownHash().empty() ? std::nullopt : std::optional(n.ShownHash()), 12) << "</code></td><td><code>"
        << (n.parent_present && !n.parent_hash ? std::string("(genesis)") : opt(n.parent_hash, 12))
        << "</code></td><td class=\"num\">" << (n.schema_version ? std::to_string(*n.schema_version) : "-")
        << "</td><td>" << opt(n.wmcp_version, 40) << "</td><td>" << opt(n.created_at, 40) << "</td><td>"
        << VerdictBadge(NodeVerdict(run, i, context.threshold)) << "</td><td>"
        << (why.empty() ? std::string() : "<code>" + HtmlEscape(why) + "</code>") << "</td><td><code>"
        << HtmlEscape(n.path) << "</code></td></tr>\n";
  }
  out << "</table>\n";
  std::vector<Listed> findings;
  findings.reserve(by_cause.size());
  std::vector<DroppedListed> dropped;
  for (const PlacedFinding& p : by_cause) findings.push_back({p.finding, p.node ? g.nodes[*p.node].path : ""});
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    for (const DroppedFindings& d : n.audit_dropped) dropped.push_back({&d, n.path});
    ToolErrors(out, n.tool_errors, n.path);
  }
  ToolErrors(out, run.discovery_errors, "");
  FindingsByRule(out, findings, dropped);
  EndPage(out, context);
}

}  // namespace ckpt::reports
