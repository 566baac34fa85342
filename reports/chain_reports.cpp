#include "reports/chain_reports.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "lib/core/text.h"
#include "reports/json_pretty.h"
#include "reports/json_report.h"
#include "reports/text_report.h"

namespace ckpt::reports {
namespace {

// Hashes shown may be declared ones, i.e. any string the input chose: always escaped.
std::string Short(const std::string& hash) { return hash.empty() ? "-" : EscapeForDisplay(hash.substr(0, 12)); }

// Pads `text` to `width` display columns (escaped text is ASCII or whole code points).
std::string Pad(std::string text, std::size_t width) {
  std::size_t columns = 0;
  for (char c : text) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  if (columns < width) text.append(width - columns, ' ');
  return text;
}

std::string RoundText(const ChainNode& node) { return node.round_index ? std::to_string(*node.round_index) : "?"; }

// What the pictures mark on each node of the scope.
struct Marks {
  std::vector<std::size_t> nodes;                        // scope in history order
  std::set<std::size_t> forks;                           // parents with a chain-fork finding
  std::map<std::string, std::vector<std::size_t>> gaps;  // missing parent hash -> children
};

Marks MarksOf(const ChainRun& run) {
  Marks m;
  m.nodes = run.history;
  for (const ChainFinding& f : run.findings) {
    if (f.node && f.finding.rule->id == "chain-fork") m.forks.insert(*f.node);
    if (f.node && f.finding.rule->id == "chain-gap") {
      m.gaps[*run.graph.nodes[*f.node].parent_hash].push_back(*f.node);
    }
  }
  return m;
}

std::string_view VerdictWord(Verdict v) { return VerdictName(v); }

// Graphviz double-quoted string contents: display-escaped first (no control, bidi or
// invalid byte survives), then '"' and '\\' escaped so no input can close the string.
std::string DotEscape(std::string_view text) {
  std::string out;
  for (char c : EscapeForDisplay(text)) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// Mermaid "quoted" label contents: display-escaped, then every character Mermaid reads
// specially inside a label written as an entity code (#quot; and friends).
std::string MermaidEscape(std::string_view text) {
  std::string out;
  for (char c : EscapeForDisplay(text)) {
    switch (c) {
      case '"':
        out += "#quot;";
        break;
      case '<':
        out += "#lt;";
        break;
      case '>':
        out += "#gt;";
        break;
      case '&':
        out += "#amp;";
        break;
      case '#':
        out += "#35;";
        break;
      case '`':
        out += "#96;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

// The first 12 characters of a hash, raw: each picture escapes it its own way.
std::string RawShort(const std::string& hash) { return hash.empty() ? "-" : hash.substr(0, 12); }

}  // namespace

void WriteChainText(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  out << "ROUND  HASH          PARENT        VERDICT  PATH\n";
  std::size_t passed = 0, failed = 0, errored = 0, findings = 0;
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    const Verdict v = NodeVerdict(run, i, context.threshold);
    (v == Verdict::kPass ? passed : v == Verdict::kFail ? failed : errored)++;
    out << Pad(RoundText(n), 5) << "  " << Pad(Short(n.ShownHash()), 12) << "  "
        << Pad(n.parent_present && !n.parent_hash ? std::string("(genesis)") : Short(n.parent_hash.value_or("")), 12)
        << "  " << Pad(std::string(VerdictWord(v)), 7) << "  " << EscapeForDisplay(n.path) << "\n";
    findings += static_cast<std::size_t>(
        std::count_if(n.audit_findings.begin(), n.audit_findings.end(), [](const Finding& f) { return f.counts(); }));
    WriteFindingLines(out, "       ", n.path, n.audit_findings, context.color);
    for (const DroppedFindings& d : n.audit_dropped) {
      findings += d.count;
      out << "       " << DroppedLine(d) << "\n";
    }
    std::vector<Finding> on_node;
    for (const ChainFinding& f : run.findings) {
      if (f.node != i) continue;
      if (f.finding.counts()) ++findings;
      on_node.push_back(f.finding);
    }
    WriteFindingLines(out, "       ", "", on_node, context.color);
    for (const std::string& e : n.tool_errors) out << "       tool error: " << EscapeForDisplay(e) << "\n";
  }
  std::vector<Finding> on_run;
  for (const ChainFinding& f : run.findings) {
    if (f.node) continue;
    if (f.finding.counts()) ++findings;
    on_run.push_back(f.finding);
  }
  WriteFindingLines(out, "", "", on_run, context.color);
  for (const std::string& e : run.discovery_errors) out << "tool error: " << EscapeForDisplay(e) << "\n";
  if (g.nodes.empty()) out << "tool error: no artifact (a directory holding header.json) was found\n";
  out << Plural(run.history.size(), "artifact") << " in the " << (g.lineage_only ? "lineage" : "history") << " ("
      << g.nodes.size() << " found): " << passed << " passed, " << failed << " failed";
  if (errored) out << ", " << errored << " not audited";
  out << "; " << Plural(findings, "finding") << " (" << ThresholdText(context.threshold) << "; " << context.tool_name
      << " " << context.version << ")" << (g.hashes_recomputed ? "" : "; hashes NOT recomputed (--no-hash)") << "\n";
}

boost::json::value ChainReportToJson(const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  auto opt = [](const std::optional<std::string>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  boost::json::object out;
  out["report"] = "ckpt-chain-report";
  out["report_schema_version"] = 1;
  out["tool"] = {{"name", context.tool_name}, {"version", context.version}};
  out["fail_on"] = FailThresholdName(context.threshold);
  out["gating"] = context.threshold.has_value();  // false with --fail-on none: verdicts inform, exit is 0
  if (context.policy) out["policy"] = *context.policy;
  out["options"] = {
      {"hashes_recomputed", g.hashes_recomputed}, {"genesis", opt(g.pinned_genesis)}, {"head", opt(g.head_query)}};
  std::map<std::size_t, std::size_t> position;  // node -> index in history
  for (std::size_t k = 0; k < run.history.size(); ++k) position[run.history[k]] = k;
  boost::json::array history;
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    boost::json::object item;
    item["path"] = n.path;
    item["round_index"] = n.round_index ? boost::json::value(*n.round_index) : boost::json::value(nullptr);
    item["content_hash"] = {{"declared", opt(n.declared_hash)}, {"computed", opt(n.computed_hash)}};
    item["parent_hash"] = opt(n.parent_hash);
    item["parent"] = (g.parent_of[i] && position.count(*g.parent_of[i])) ? boost::json::value(position[*g.parent_of[i]])
                                                                         : boost::json::value(nullptr);
    item["wmcp_version"] = opt(n.wmcp_version);
    item["verdict"] = VerdictName(NodeVerdict(run, i, context.threshold));
    boost::json::array findings;
    for (const Finding& f : n.audit_findings) {
      boost::json::value j = FindingToJson(f);
      j.as_object()["location"].as_object()["artifact"] = n.path;
      findings.push_back(std::move(j));
    }
    for (const ChainFinding& f : run.findings) {
      if (f.node == i) findings.push_back(FindingToJson(f.finding));
    }
    item["findings"] = std::move(findings);
    item["dropped_findings"] = DroppedToJson(n.audit_dropped);
    boost::json::array errors;
    for (const std::string& e : n.tool_errors) errors.push_back(boost::json::value(e));
    item["tool_errors"] = std::move(errors);
    history.push_back(std::move(item));
  }
  out["history"] = std::move(history);
  boost::json::array edges;
  for (const ChainEdge& e : g.edges) {
    if (!g.InScope(e.child) || !g.InScope(e.parent)) continue;
    edges.push_back({{"parent", position[e.parent]},
                     {"child", position[e.child]},
                     {"parent_hash", opt(g.nodes[e.child].parent_hash)},
                     {"trusted", e.trusted}});
  }
  out["edges"] = std::move(edges);
  boost::json::array run_findings;
  for (const ChainFinding& f : run.findings) {
    if (!f.node) run_findings.push_back(FindingToJson(f.finding));
  }
  out["findings"] = std::move(run_findings);
  boost::json::array errors;
  for (const std::string& e : run.discovery_errors) errors.push_back(boost::json::value(e));
  out["tool_errors"] = std::move(errors);
  std::size_t passed = 0, failed = 0, errored = 0;
  for (std::size_t i : run.history) {
    Verdict v = NodeVerdict(run, i, context.threshold);
    (v == Verdict::kPass ? passed : v == Verdict::kFail ? failed : errored)++;
  }
  out["summary"] = {{"found", g.nodes.size()},
                    {"in_scope", run.history.size()},
                    {"passed", passed},
                    {"failed", failed},
                    {"errors", errored}};
  out["exit_code"] = ChainExitCode(run, context.threshold);
  return out;
}

void WriteChainJson(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  WritePrettyJson(out, ChainReportToJson(run, context));
}

void WriteChainDot(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  const Marks marks = MarksOf(run);
  out << "digraph history {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\"];\n";
  for (std::size_t i : marks.nodes) {
    const ChainNode& n = g.nodes[i];
    const Verdict v = NodeVerdict(run, i, context.threshold);
    const char* fill = v == Verdict::kPass ? "#d4edda" : v == Verdict::kFail ? "#f8d7da" : "#e2e3e5";
    out << "  n" << i << " [label=\"round " << RoundText(n) << "\\n"
        << DotEscape(RawShort(n.ShownHash())) << "\\n"
        << VerdictWord(v) << "\", fillcolor=\"" << fill << "\", tooltip=\"" << DotEscape(n.path) << "\"";
    if (marks.forks.count(i)) out << ", color=\"#e67e22\", penwidth=3, xlabel=\"fork\"";
    out << "];\n";
  }
  std::size_t gap_id = 0;
  for (const auto& [hash, children] : marks.gaps) {
    out << "  gap" << gap_id << " [label=\"missing\\n"
        << DotEscape(RawShort(hash)) << "\", style=\"dashed\", fillcolor=\"white\", color=\"#c0392b\"];\n";
    for (std::size_t child : children)
      out << "  gap" << gap_id << " -> n" << child << " [style=dashed, color=\"#c0392b\"];\n";
    ++gap_id;
  }
  for (const ChainEdge& e : g.edges) {
    if (!g.InScope(e.child) || !g.InScope(e.parent)) continue;
    out << "  n" << e.parent << " -> n" << e.child;
    if (!e.trusted) out << " [style=dashed, color=\"#c0392b\", label=\"untrusted\"]";
    out << ";\n";
  }
  out << "}\n";
}

void WriteChainMermaid(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  const Marks marks = MarksOf(run);
  out << "flowchart LR\n";
  for (std::size_t i : marks.nodes) {
    const ChainNode& n = g.nodes[i];
    const Verdict v = NodeVerdict(run, i, context.threshold);
    out << "  n" << i << "[\"round " << RoundText(n) << "<br/>" << MermaidEscape(RawShort(n.ShownHash())) << "<br/>"
        << VerdictWord(v) << "\"]:::" << VerdictWord(v) << "\n";
    if (marks.forks.count(i)) out << "  class n" << i << " fork\n";
  }
  std::size_t gap_id = 0;
  for (const auto& [hash, children] : marks.gaps) {
    out << "  gap" << gap_id << "[\"missing<br/>" << MermaidEscape(RawShort(hash)) << "\"]:::gap\n";
    for (std::size_t child : children) out << "  gap" << gap_id << " -.-> n" << child << "\n";
    ++gap_id;
  }
  for (const ChainEdge& e : g.edges) {
    if (!g.InScope(e.child) || !g.InScope(e.parent)) continue;
    out << "  n" << e.parent << (e.trusted ? " --> n" : " -. untrusted .-> n") << e.child << "\n";
  }
  out << "  classDef pass fill:#d4edda,stroke:#2e7d32\n"
         "  classDef fail fill:#f8d7da,stroke:#c0392b\n"
         "  classDef error fill:#e2e3e5,stroke:#555\n"
         "  classDef gap fill:#fff,stroke:#c0392b,stroke-dasharray:5 5\n"
         "  classDef fork stroke:#e67e22,stroke-width:3px\n";
}

}  // namespace ckpt::reports
