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

std::string RoundText(const ChainNode& node) { return node.round_index ? std::to_string(*node.round_index) : "?"; }

// What the pictures mark on each node of the scope.
struct Marks {
  std::vector<std::size_t> nodes;                        // scope in history order
  std::set<std::size_t> forks;                           // parents whose children have a chain-fork finding
  std::map<std::string, std::vector<std::size_t>> gaps;  // missing parent hash -> children
};

Marks MarksOf(const ChainRun& run) {
  Marks m;
  m.nodes = run.history;
  for (const ChainFinding& f : run.findings) {
    if (f.node && f.finding.rule->id == "chain-fork" && run.graph.parent_of[*f.node]) {
      m.forks.insert(*run.graph.parent_of[*f.node]);
    }
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

// The verdicts of the rounds in scope.
struct VerdictCounts {
  std::size_t passed = 0, failed = 0, errored = 0;
};
VerdictCounts CountVerdicts(const ChainRun& run, FailThreshold threshold) {
  VerdictCounts c;
  for (std::size_t i : run.history) {
    const Verdict v = NodeVerdict(run, i, threshold);
    (v == Verdict::kPass ? c.passed : v == Verdict::kFail ? c.failed : c.errored)++;
  }
  return c;
}

// Splits `text` into lines of at most `width` code points, breaking after '-', '/', '.' or
// '_' where one is near the end of a line.
std::vector<std::string> Wrap(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t columns = 0;
  std::size_t last_break = std::string::npos;  // byte position in `line` after a break character
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool starts_code_point = StartsCodePoint(c);
    if (starts_code_point && columns == width) {
      if (last_break != std::string::npos && last_break > line.size() / 2) {
        lines.push_back(line.substr(0, last_break));
        line.erase(0, last_break);
      } else {
        lines.push_back(line);
        line.clear();
      }
      columns = static_cast<std::size_t>(std::count_if(line.begin(), line.end(), StartsCodePoint));
      last_break = std::string::npos;
    }
    line.push_back(c);
    if (starts_code_point) ++columns;
    if (c == '-' || c == '/' || c == '.' || c == '_') last_break = line.size();
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// The last `max_chars` code points of a path, "..." in front when cut.
std::string PathTail(std::string_view path, std::size_t max_chars) {
  std::size_t columns = 0;
  for (std::size_t i = path.size(); i > 0; --i) {
    if (StartsCodePoint(path[i - 1]) && ++columns == max_chars) {
      return i == 1 ? std::string(path) : "..." + std::string(path.substr(i - 1));
    }
  }
  return std::string(path);
}

// The rule id a failed node's picture shows: its first finding that fails it.
std::string FirstFailingRuleOf(const ChainRun& run, std::size_t node, FailThreshold threshold) {
  const Severity bar = threshold.value_or(Severity::kError);
  for (const Finding& f : run.graph.nodes[node].audit_findings) {
    if (f.counts() && AtOrAbove(f.severity(), bar)) return std::string(f.rule->id);
  }
  for (const DroppedFindings& d : run.graph.nodes[node].audit_dropped) {
    if (d.counts() && AtOrAbove(d.severity(), bar)) return std::string(d.rule->id);
  }
  for (const ChainFinding& f : run.findings) {
    if (f.node == node && f.finding.counts() && AtOrAbove(f.finding.severity(), bar)) {
      return std::string(f.finding.rule->id);
    }
  }
  return "";
}

// Where each round of the history goes in a picture that reads at page width: rows of
// kRoundsPerRow rounds (by round index), each row left to right; a missing run of rounds is
// one box in its place; nodes of the same round (a fork) side by side; a row holding more than
// kCellsPerRow boxes continues on the next; artifacts with no round come last.
constexpr std::uint64_t kRoundsPerRow = 8;
constexpr std::size_t kCellsPerRow = 10;
constexpr std::size_t kLabelWidth = 16;  // code points per label line

struct ChainLayout {
  struct Cell {
    std::string id;
    std::optional<std::size_t> node;  ///< a node of the graph; else a gap or the trusted parent
    bool fork = false;
    bool trusted_parent = false;
    std::vector<std::string> lines;  ///< raw text: each picture escapes it its own way
  };
  struct Link {
    std::size_t from = 0;
    std::size_t to = 0;
    bool gap = false;
    bool untrusted = false;
    std::optional<std::string> wmcp_change;  ///< "wmcp A -> B"
  };
  std::vector<Cell> cells;
  std::vector<std::vector<std::size_t>> rows;  ///< cell indices, left to right
  std::vector<std::size_t> row_of;             ///< per cell
  std::vector<Link> links;
};

ChainLayout LayoutChain(const ChainRun& run, FailThreshold threshold) {
  const ChainGraph& g = run.graph;
  const Marks marks = MarksOf(run);
  ChainLayout layout;
  // Sort key per cell: the round it stands for (nullopt: no round, last), then its place
  // within the round (gaps and the trusted parent before the nodes), then history order.
  struct Placed {
    std::optional<std::uint64_t> round;
    int order = 0;
    std::size_t sequence = 0;
    std::size_t cell = 0;
  };
  std::vector<Placed> placed;
  std::map<std::size_t, std::size_t> cell_of_node;
  std::set<std::uint64_t> present;
  for (std::size_t i : marks.nodes) {
    const ChainNode& n = g.nodes[i];
    ChainLayout::Cell cell;
    cell.id = "n" + std::to_string(i);
    cell.node = i;
    cell.fork = marks.forks.count(i) > 0;
    cell.lines.push_back("round " + RoundText(n));
    const Verdict v = NodeVerdict(run, i, threshold);
    if (v == Verdict::kError || !n.tool_errors.empty()) {
      cell.lines.emplace_back("unreadable");
      for (std::string& line : Wrap(PathTail(n.path, 2 * kLabelWidth), kLabelWidth)) cell.lines.push_back(line);
    } else {
      // An artifact with no round (a header that does not parse) is known by its path.
      if (n.round_index) {
        cell.lines.push_back(RawShort(n.ShownHash()));
      } else {
        for (std::string& line : Wrap(PathTail(n.path, 2 * kLabelWidth), kLabelWidth)) cell.lines.push_back(line);
      }
      if (v == Verdict::kFail) {
        const std::string rule = FirstFailingRuleOf(run, i, threshold);
        std::vector<std::string> wrapped = Wrap("fail: " + rule, kLabelWidth);
        cell.lines.insert(cell.lines.end(), wrapped.begin(), wrapped.end());
      } else {
        cell.lines.emplace_back(VerdictWord(v));
      }
    }
    if (cell.fork) cell.lines.emplace_back("(fork)");
    // A branch of a fork is told apart by its path (its hash alone says nothing to a reader).
    if (n.round_index && g.parent_of[i] && marks.forks.count(*g.parent_of[i]) && n.tool_errors.empty()) {
      for (std::string& line : Wrap(PathTail(n.path, 2 * kLabelWidth), kLabelWidth)) cell.lines.push_back(line);
    }
    cell_of_node[i] = layout.cells.size();
    placed.push_back({n.round_index, 2, placed.size(), layout.cells.size()});
    layout.cells.push_back(std::move(cell));
    if (n.round_index) present.insert(*n.round_index);
  }
  std::optional<std::size_t> trusted_cell;
  if (g.trusted_parent) {
    ChainLayout::Cell cell;
    cell.id = "trusted";
    cell.trusted_parent = true;
    cell.lines = {"proven parent", RawShort(*g.trusted_parent)};
    if (g.trusted_parent_round)
      cell.lines.insert(cell.lines.begin() + 1, "round " + std::to_string(*g.trusted_parent_round));
    trusted_cell = layout.cells.size();
    std::optional<std::uint64_t> round = g.trusted_parent_round;
    if (!round && !present.empty()) round = *present.begin();
    placed.push_back({round, 0, placed.size(), layout.cells.size()});
    layout.cells.push_back(std::move(cell));
    if (g.trusted_parent_round) present.insert(*g.trusted_parent_round);
  }
  // Runs of missing rounds between the first and the last present: one box each, in place.
  std::map<std::uint64_t, std::size_t> gap_cell_ending_at;  // last missing round -> cell
  std::optional<std::uint64_t> previous;
  for (std::uint64_t r : present) {
    if (previous && r > *previous + 1) {
      const std::uint64_t first = *previous + 1;
      const std::uint64_t last = r - 1;
      ChainLayout::Cell cell;
      cell.id = "gap" + std::to_string(layout.cells.size());
      cell.lines.push_back(first == last ? "round " + std::to_string(first)
                                         : "rounds " + std::to_string(first) + "-" + std::to_string(last));
      cell.lines.emplace_back("missing");
      gap_cell_ending_at[last] = layout.cells.size();
      placed.push_back({first, 0, placed.size(), layout.cells.size()});
      layout.cells.push_back(std::move(cell));
    }
    previous = r;
  }
  // Missing parents: drawn into the run before the child's round when there is one, else as
  // a box of their own just before the child.
  for (const auto& [hash, children] : marks.gaps) {
    std::optional<std::size_t> gap;
    for (std::size_t child : children) {
      const auto& round = g.nodes[child].round_index;
      if (round && *round > 0 && gap_cell_ending_at.count(*round - 1)) gap = gap_cell_ending_at[*round - 1];
    }
    if (gap && layout.cells[*gap].lines.size() == 2) {
      layout.cells[*gap].lines.push_back(RawShort(hash));
    } else {
      ChainLayout::Cell cell;
      cell.id = "gap" + std::to_string(layout.cells.size());
      cell.lines = {"missing parent", RawShort(hash)};
      gap = layout.cells.size();
      const std::size_t first_child = children.front();
      placed.push_back({g.nodes[first_child].round_index, 1, placed.size(), layout.cells.size()});
      layout.cells.push_back(std::move(cell));
    }
    for (std::size_t child : children) layout.links.push_back({*gap, cell_of_node[child], true, false, std::nullopt});
  }
  if (trusted_cell) {
    for (std::size_t i : marks.nodes) {
      if (g.OnTrustedParent(i)) layout.links.push_back({*trusted_cell, cell_of_node[i], false, false, std::nullopt});
    }
  }
  for (const ChainEdge& e : g.edges) {
    if (!g.InScope(e.child) || !g.InScope(e.parent)) continue;
    ChainLayout::Link link{cell_of_node[e.parent], cell_of_node[e.child], false, !e.trusted, std::nullopt};
    const auto& from = g.nodes[e.parent].wmcp_version;
    const auto& to = g.nodes[e.child].wmcp_version;
    if (from && to && *from != *to) link.wmcp_change = "wmcp " + PathTail(*from, 10) + " -> " + PathTail(*to, 10);
    layout.links.push_back(std::move(link));
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) {
    const std::uint64_t rx = x.round.value_or(UINT64_MAX), ry = y.round.value_or(UINT64_MAX);
    return std::tuple(!x.round, rx, x.order, x.sequence) < std::tuple(!y.round, ry, y.order, y.sequence);
  });
  const std::uint64_t base = present.empty() ? 0 : *present.begin();
  layout.row_of.resize(layout.cells.size());
  std::optional<std::uint64_t> current_block;
  bool current_unplaced = false;
  for (const Placed& p : placed) {
    const bool unplaced = !p.round;
    const std::uint64_t block = unplaced ? 0 : (*p.round - std::min(base, *p.round)) / kRoundsPerRow;
    const bool new_row = layout.rows.empty() || unplaced != current_unplaced || (!unplaced && block != current_block) ||
                         layout.rows.back().size() >= kCellsPerRow;
    if (new_row) layout.rows.emplace_back();
    current_block = block;
    current_unplaced = unplaced;
    layout.row_of[p.cell] = layout.rows.size() - 1;
    layout.rows.back().push_back(p.cell);
  }
  return layout;
}

}  // namespace

std::vector<PlacedFinding> ChainFindingsByCause(const ChainRun& run) {
  const ChainGraph& g = run.graph;
  std::map<std::size_t, std::size_t> position;  // node -> place in history order
  for (std::size_t k = 0; k < run.history.size(); ++k) position[run.history[k]] = k;
  struct Keyed {
    bool accepted;  // suppressed or accepted findings follow the ones that count
    int tier;
    std::uint64_t round;
    std::size_t place;
    std::size_t sequence;
    PlacedFinding placed;
  };
  std::vector<Keyed> keyed;
  auto add = [&](const Finding& f, std::optional<std::size_t> node) {
    const std::uint64_t round = node ? g.nodes[*node].round_index.value_or(UINT64_MAX) : UINT64_MAX;
    const std::size_t place = node && position.count(*node) ? position[*node] : SIZE_MAX;
    keyed.push_back({!f.counts(), static_cast<int>(f.rule->tier), round, place, keyed.size(), {&f, node}});
  };
  for (std::size_t i : run.history) {
    for (const Finding& f : g.nodes[i].audit_findings) add(f, i);
  }
  for (const ChainFinding& f : run.findings) {
    if (!f.node || position.count(*f.node)) add(f.finding, f.node);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return std::tuple(a.accepted, a.tier, a.round, a.place, a.sequence) <
           std::tuple(b.accepted, b.tier, b.round, b.place, b.sequence);
  });
  std::vector<PlacedFinding> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed) out.push_back(k.placed);
  return out;
}

namespace {

// What a failing finding says happened to the history, in a word the story can use.
std::string StoryWord(std::string_view rule) {
  static const std::map<std::string_view, std::string_view> kWords = {
      {"hash-mismatch", "tampered"},
      {"attest-signature-invalid", "forged"},
      {"attest-foreign-key", "foreign-signed"},
      {"attest-verdict-fail", "failed its signed audit"},
      {"chain-gap", "gap"},
      {"chain-fork", "fork"},
      {"chain-cycle", "cycle"},
      {"chain-round-not-consecutive", "round jump"},
      {"chain-wmcp-changed", "wmcp change"},
      {"chain-genesis-missing", "no genesis"},
      {"chain-genesis-mismatch", "genesis not the pinned one"},
      {"chain-genesis-multiple", "second genesis"},
      {"chain-head-missing", "head not found"},
      {"chain-links-unverified", "links not verified"},
  };
  auto it = kWords.find(rule);
  return it == kWords.end() ? std::string() : std::string(it->second);
}

std::string EventText(const StoryEvent& e) {
  std::string text = e.what.empty() ? "fails " + e.rule : e.what;
  if (e.round) {
    text += " at " + std::to_string(*e.round);
    if (e.last_round && *e.last_round != *e.round) text += "-" + std::to_string(*e.last_round);
  } else if (!e.path.empty()) {
    text += " at " + PathTail(e.path, 40);
  }
  return text;
}

}  // namespace

ChainStory TellChainStory(const ChainRun& run, FailThreshold threshold) {
  const ChainGraph& g = run.graph;
  ChainStory story;
  if (run.history.empty()) return story;
  if (g.head) {
    story.head = g.head;
  } else if (!g.lineage_only) {
    // The latest round; history order puts nodes without a round last.
    for (std::size_t i : run.history) {
      const auto& round = g.nodes[i].round_index;
      if (round && (!story.head || *round > *g.nodes[*story.head].round_index)) story.head = i;
    }
    if (!story.head) story.head = run.history.front();
  }
  bool reached_root = false;
  if (story.head) {
    bool holds = true;
    std::vector<bool> seen(g.nodes.size(), false);
    for (std::optional<std::size_t> at = story.head; at && !seen[*at];) {
      seen[*at] = true;
      if (NodeVerdict(run, *at, threshold) != Verdict::kPass) holds = false;
      if (g.nodes[*at].is_genesis() || g.OnTrustedParent(*at)) {
        reached_root = true;
        break;
      }
      if (g.parent_untrusted[*at]) holds = false;
      at = g.parent_of[*at];
    }
    story.traces = holds && reached_root;
  }

  // Every round found, not only those in scope: under --head, rounds 0-11 outside the
  // lineage are still there, and a lineage broken at 12 is missing 12 alone.
  std::set<std::uint64_t> present;
  for (const ChainNode& n : g.nodes) {
    if (n.round_index && !n.refused_claims) present.insert(*n.round_index);
  }
  const FailThreshold bar = VerdictThreshold(threshold);
  std::set<std::tuple<std::string, std::optional<std::uint64_t>, std::string>> told;
  auto tell = [&](StoryEvent e) {
    if (told.emplace(e.what, e.round, e.what.empty() ? e.rule : std::string()).second) {
      story.events.push_back(std::move(e));
    }
  };
  auto failing = [&](const Finding& f) { return f.counts() && AtOrAbove(f.severity(), bar); };
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    if (!n.tool_errors.empty()) tell({"unreadable", n.round_index, std::nullopt, "", n.path});
    for (const Finding& f : n.audit_findings) {
      if (!failing(f)) continue;
      tell({StoryWord(f.rule->id), n.round_index, std::nullopt, std::string(f.rule->id), n.path});
      break;  // the round's first failure tells its story; the rest is in the findings
    }
    // A lineage that ends in a gap, or at a refused statement (whose parent nothing vouches
    // for), has no genesis because of that: told once, as the gap or the refusal.
    const bool gap_here =
        n.refused_claims || std::any_of(run.findings.begin(), run.findings.end(), [&](const ChainFinding& f) {
          return f.node == i && f.finding.rule->id == "chain-gap";
        });
    for (const ChainFinding& f : run.findings) {
      if (f.node != i || !failing(f.finding) || f.finding.rule->tier == Tier::kConsequence) continue;
      if (gap_here && f.finding.rule->id == "chain-genesis-missing") continue;
      StoryEvent e{StoryWord(f.finding.rule->id), n.round_index, std::nullopt, std::string(f.finding.rule->id), n.path};
      // A fork is told at its branches, and told in the story where the history branches: at
      // the parent both name ("fork at 20": round 20 has two children), once.
      if (f.finding.rule->id == "chain-fork" && g.parent_of[i]) {
        e.round = g.nodes[*g.parent_of[i]].round_index;
        e.path = g.nodes[*g.parent_of[i]].path;
      }
      if (f.finding.rule->id == "chain-gap" && n.round_index && *n.round_index > 0) {
        // The missing rounds: back from the child to the round before it that is present.
        e.last_round = *n.round_index - 1;
        auto before = present.lower_bound(*n.round_index);
        e.round = before == present.begin() ? 0 : *std::prev(before) + 1;
        if (*e.round > *e.last_round) e.round = e.last_round;
      }
      tell(std::move(e));
    }
  }
  for (const ChainFinding& f : run.findings) {
    if (!f.node && failing(f.finding)) {
      tell({StoryWord(f.finding.rule->id), std::nullopt, std::nullopt, std::string(f.finding.rule->id), ""});
    }
  }
  std::sort(story.events.begin(), story.events.end(), [](const StoryEvent& a, const StoryEvent& b) {
    return a.round.value_or(UINT64_MAX) < b.round.value_or(UINT64_MAX);
  });

  std::string subject = "no head";
  if (story.head) {
    const ChainNode& h = g.nodes[*story.head];
    subject = h.round_index ? "round " + std::to_string(*h.round_index) : PathTail(h.path, 40);
  }
  std::string root = "genesis";
  if (g.trusted_parent) {
    root = g.trusted_parent_round ? "the proven round " + std::to_string(*g.trusted_parent_round)
                                  : "the proven parent " + g.trusted_parent->substr(0, 12);
  }
  std::string events;
  for (const StoryEvent& e : story.events) events += (events.empty() ? "" : ", ") + EventText(e);
  if (!story.head) {
    story.line = "no head to trace" + (events.empty() ? std::string(".") : ": " + events + ".");
  } else if (story.traces) {
    std::size_t rounds = 0;
    std::vector<bool> seen(g.nodes.size(), false);
    for (std::optional<std::size_t> at = story.head; at && !seen[*at]; at = g.parent_of[*at]) {
      seen[*at] = true;
      ++rounds;
    }
    story.line = subject + " traces to " + root + " through " + Plural(rounds, "round") +
                 (g.hashes_recomputed ? "" : " (declared hashes only)") +
                 (events.empty() ? std::string(".") : "; elsewhere in the history: " + events + ".");
  } else {
    story.line = subject + " does not trace to " + root + (events.empty() ? std::string(".") : ": " + events + ".");
  }
  return story;
}

std::string ChainSummaryLine(const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  const VerdictCounts verdicts = CountVerdicts(run, context.threshold);
  std::size_t findings = 0;
  std::set<std::uint64_t> rounds;
  for (std::size_t i : run.history) {
    const ChainNode& n = g.nodes[i];
    for (const Finding& f : n.audit_findings) findings += f.counts() ? 1U : 0U;
    for (const DroppedFindings& d : n.audit_dropped) findings += d.counts() ? d.count : 0;
    if (n.round_index) rounds.insert(*n.round_index);
  }
  for (const ChainFinding& f : run.findings) findings += f.finding.counts() ? 1U : 0U;
  std::string line = Plural(run.history.size(), "artifact") + " in the " + (g.lineage_only ? "lineage" : "history") +
                     " (" + std::to_string(g.nodes.size()) + " found): " + std::to_string(verdicts.passed) +
                     " passed, " + std::to_string(verdicts.failed) + " failed";
  if (verdicts.errored) line += ", " + std::to_string(verdicts.errored) + " not audited";
  if (!rounds.empty()) {
    const std::uint64_t missing = (*rounds.rbegin() - *rounds.begin()) - (rounds.size() - 1);
    line += "; rounds " + std::to_string(*rounds.begin()) + "-" + std::to_string(*rounds.rbegin());
    if (missing > 0) line += " (" + std::to_string(missing) + " missing)";
  }
  if (g.trusted_parent) {
    line += g.trusted_parent_round ? "; on the proven round " + std::to_string(*g.trusted_parent_round) + " "
                                   : std::string("; on the proven parent ");
    line += Short(*g.trusted_parent);
  }
  line += "; " + Plural(findings, "finding");
  return line;
}

std::string RoundLabel(const ChainNode& node) { return RoundText(node); }

std::string FirstFailingRule(const ChainRun& run, std::size_t node, FailThreshold threshold) {
  return FirstFailingRuleOf(run, node, threshold);
}

std::map<std::uint64_t, std::uint64_t> MissingRoundRuns(const ChainRun& run) {
  std::map<std::uint64_t, std::uint64_t> missing;
  std::optional<std::uint64_t> previous;
  for (std::size_t i : run.history) {
    const auto& round = run.graph.nodes[i].round_index;
    if (!round) continue;
    if (previous && *round > *previous + 1) missing[*previous + 1] = *round - 1;
    previous = round;
  }
  return missing;
}

namespace {

// Rows a run of missing rounds gets in the text table before one row says the rest.
constexpr std::uint64_t kMissingRowsShown = 20;

std::string RoundRange(std::uint64_t first, std::uint64_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

void WriteChainText(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  const ChainStory story = TellChainStory(run, context.threshold);
  if (!story.line.empty()) out << EscapeForDisplay(story.line) << "\n";
  if (context.quiet) {
    // What failed, root cause first, each located in its round; then the summary.
    for (const PlacedFinding& p : ChainFindingsByCause(run)) {
      if (!p.finding->counts()) continue;
      out << FindingLine(p.node ? g.nodes[*p.node].path : "", *p.finding, context.color) << "\n";
    }
    for (std::size_t i : run.history) {
      for (const DroppedFindings& d : g.nodes[i].audit_dropped) {
        out << EscapeForDisplay(g.nodes[i].path) << ": " << DroppedLine(d) << "\n";
      }
      for (const std::string& e : g.nodes[i].tool_errors) out << "tool error: " << EscapeForDisplay(e) << "\n";
    }
  } else {
    out << "ROUND  HASH          PARENT        SCHEMA  WMCP          CREATED_AT            VERDICT  PATH\n";
    const std::map<std::uint64_t, std::uint64_t> missing = MissingRoundRuns(run);
    for (std::size_t i : run.history) {
      const ChainNode& n = g.nodes[i];
      if (n.round_index) {
        auto gap = missing.upper_bound(*n.round_index);
        if (gap != missing.begin() && std::prev(gap)->second + 1 == *n.round_index) {
          --gap;
          // A row per missing round; a long run ends in one row for the rest.
          for (std::uint64_t r = gap->first; r <= gap->second; ++r) {
            const bool rest = r - gap->first == kMissingRowsShown && r < gap->second;
            out << PadToColumns(rest ? RoundRange(r, gap->second) : std::to_string(r), 5)
                << "  (missing: no artifact in the set)\n";
            if (rest) break;
          }
        }
      }
      const Verdict v = NodeVerdict(run, i, context.threshold);
      out << PadToColumns(RoundText(n), 5) << "  " << PadToColumns(Short(n.ShownHash()), 12) << "  "
          << PadToColumns(
                 n.parent_present && !n.parent_hash ? std::string("(genesis)") : Short(n.parent_hash.value_or("")), 12)
          << "  " << PadToColumns(n.schema_version ? std::to_string(*n.schema_version) : "-", 6) << "  "
          << PadToColumns(n.wmcp_version ? EscapeForDisplay(PathTail(*n.wmcp_version, 12)) : "-", 12) << "  "
          << PadToColumns(n.created_at ? EscapeForDisplay(PathTail(*n.created_at, 20)) : "-", 20) << "  "
          << PadToColumns(std::string(VerdictWord(v)), 7) << "  " << EscapeForDisplay(n.path) << "\n";
      WriteFindingLines(out, "       ", n.path, n.audit_findings, context.color);
      for (const DroppedFindings& d : n.audit_dropped) out << "       " << DroppedLine(d) << "\n";
      std::vector<Finding> on_node;
      for (const ChainFinding& f : run.findings) {
        if (f.node == i) on_node.push_back(f.finding);
      }
      WriteFindingLines(out, "       ", n.path, on_node, context.color);
      for (const std::string& e : n.tool_errors) out << "       tool error: " << EscapeForDisplay(e) << "\n";
    }
    std::vector<Finding> on_run;
    for (const ChainFinding& f : run.findings) {
      if (!f.node) on_run.push_back(f.finding);
    }
    WriteFindingLines(out, "", "", on_run, context.color);
  }
  for (const std::string& e : run.discovery_errors) out << "tool error: " << EscapeForDisplay(e) << "\n";
  if (g.nodes.empty()) out << "tool error: no artifact (a directory holding header.json) was found\n";
  out << ChainSummaryLine(run, context) << " (" << ThresholdText(context.threshold) << "; " << context.tool_name << " "
      << context.version << ")" << (g.hashes_recomputed ? "" : "; hashes NOT recomputed (--no-hash)") << "\n";
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
    item["schema_version"] = n.schema_version ? boost::json::value(*n.schema_version) : boost::json::value(nullptr);
    item["created_at"] = opt(n.created_at);
    item["verdict"] = VerdictName(NodeVerdict(run, i, context.threshold));
    const std::string why = FirstFailingRuleOf(run, i, context.threshold);
    item["first_failing_rule"] = why.empty() ? boost::json::value(nullptr) : boost::json::value(why);
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
  // Every finding again, root cause first, each with its round: what to read first.
  boost::json::array by_cause;
  for (const PlacedFinding& p : ChainFindingsByCause(run)) {
    boost::json::value j = FindingToJson(*p.finding);
    if (p.node) {
      const ChainNode& n = g.nodes[*p.node];
      j.as_object()["location"].as_object()["artifact"] = n.path;
      j.as_object()["history_index"] = position[*p.node];
      j.as_object()["round_index"] = n.round_index ? boost::json::value(*n.round_index) : boost::json::value(nullptr);
    } else {
      j.as_object()["history_index"] = nullptr;
      j.as_object()["round_index"] = nullptr;
    }
    by_cause.push_back(std::move(j));
  }
  out["findings_by_cause"] = std::move(by_cause);
  boost::json::array missing;
  for (const auto& [first, last] : MissingRoundRuns(run)) missing.push_back({{"first", first}, {"last", last}});
  out["missing_rounds"] = std::move(missing);
  const ChainStory story = TellChainStory(run, context.threshold);
  boost::json::array events;
  for (const StoryEvent& e : story.events) {
    events.push_back({{"what", e.what.empty() ? boost::json::value(nullptr) : boost::json::value(e.what)},
                      {"rule", e.rule},
                      {"round", e.round ? boost::json::value(*e.round) : boost::json::value(nullptr)},
                      {"last_round", e.last_round ? boost::json::value(*e.last_round) : boost::json::value(nullptr)},
                      {"path", e.path.empty() ? boost::json::value(nullptr) : boost::json::value(e.path)}});
  }
  out["story"] = {{"line", story.line},
                  {"head", story.head && position.count(*story.head) ? boost::json::value(position[*story.head])
                                                                     : boost::json::value(nullptr)},
                  {"traces", story.traces},
                  {"events", std::move(events)}};
  boost::json::array errors;
  for (const std::string& e : run.discovery_errors) errors.push_back(boost::json::value(e));
  out["tool_errors"] = std::move(errors);
  const VerdictCounts verdicts = CountVerdicts(run, context.threshold);
  out["summary"] = {{"found", g.nodes.size()},
                    {"in_scope", run.history.size()},
                    {"passed", verdicts.passed},
                    {"failed", verdicts.failed},
                    {"errors", verdicts.errored}};
  out["exit_code"] = ChainExitCode(run, context.threshold);
  return out;
}

void WriteChainJson(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  WritePrettyJson(out, ChainReportToJson(run, context));
}

void WriteChainDot(std::ostream& out, const ChainRun& run, const ReportContext& context) {
  const ChainGraph& g = run.graph;
  const ChainLayout layout = LayoutChain(run, context.threshold);
  out << "digraph history {\n"
         "  graph [rankdir=TB, newrank=true, nodesep=0.25, ranksep=0.45, fontname=\"monospace\", fontsize=12, "
         "labelloc=t, labeljust=l, label=\""
      << DotEscape(ChainSummaryLine(run, context)) << "\"];\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10, margin=\"0.08,0.04\"];\n"
         "  edge [arrowsize=0.6, fontname=\"monospace\", fontsize=10];\n";
  // The legend: one table, above the first row.
  out << "  legend [shape=plaintext, style=\"\", margin=0, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
         "CELLSPACING=\"4\" CELLPADDING=\"3\"><TR>"
         "<TD BGCOLOR=\"#d4edda\">pass</TD><TD BGCOLOR=\"#f8d7da\">fail: first rule</TD>"
         "<TD BGCOLOR=\"#e2e3e5\">not audited</TD><TD BORDER=\"1\" STYLE=\"dashed\" COLOR=\"#c0392b\">missing "
         "round</TD><TD COLOR=\"#e67e22\" BORDER=\"3\">fork</TD><TD STYLE=\"dashed\" COLOR=\"#2e7d32\">proven "
         "parent</TD><TD><FONT COLOR=\"#c0392b\">- - &gt; untrusted "
         "link</FONT></TD><TD><FONT COLOR=\"#8e44ad\">&#8594; wmcp changed</FONT></TD>"
         "</TR></TABLE>>];\n";
  for (const ChainLayout::Cell& cell : layout.cells) {
    out << "  " << cell.id << " [label=\"";
    for (std::size_t k = 0; k < cell.lines.size(); ++k) out << (k ? "\\n" : "") << DotEscape(cell.lines[k]);
    out << "\"";
    if (cell.node) {
      const ChainNode& n = g.nodes[*cell.node];
      const Verdict v = NodeVerdict(run, *cell.node, context.threshold);
      const char* fill = v == Verdict::kPass ? "#d4edda" : v == Verdict::kFail ? "#f8d7da" : "#e2e3e5";
      out << ", fillcolor=\"" << fill << "\", tooltip=\"" << DotEscape(n.path) << "\"";
      if (cell.fork) out << ", color=\"#e67e22\", penwidth=3";
    } else if (cell.trusted_parent) {
      out << ", style=\"rounded,dashed\", fillcolor=\"white\", color=\"#2e7d32\"";
    } else {
      out << ", style=\"dashed\", fillcolor=\"white\", color=\"#c0392b\", fontcolor=\"#c0392b\"";
    }
    out << "];\n";
  }
  // Rows: one rank each, in order left to right (invisible edges keep the order), stacked
  // under the legend by invisible edges between their first cells.
  std::string above = "legend";
  for (const std::vector<std::size_t>& row : layout.rows) {
    out << "  { rank=same;";
    for (std::size_t c : row) out << " " << layout.cells[c].id << ";";
    out << " }\n";
    for (std::size_t k = 0; k + 1 < row.size(); ++k) {
      out << "  " << layout.cells[row[k]].id << " -> " << layout.cells[row[k + 1]].id << " [style=invis];\n";
    }
    out << "  " << above << " -> " << layout.cells[row.front()].id << " [style=invis];\n";
    above = layout.cells[row.front()].id;
  }
  for (const ChainLayout::Link& link : layout.links) {
    const std::string& from = layout.cells[link.from].id;
    const std::string& to = layout.cells[link.to].id;
    std::vector<std::string> attributes;
    if (layout.row_of[link.from] != layout.row_of[link.to]) attributes.emplace_back("constraint=false");
    if (link.gap) attributes.emplace_back("style=dashed, color=\"#c0392b\"");
    if (link.untrusted)
      attributes.emplace_back("style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", label=\"untrusted\"");
    if (link.wmcp_change) {
      attributes.push_back("color=\"#8e44ad\", fontcolor=\"#8e44ad\", penwidth=2, label=\"" +
                           DotEscape(*link.wmcp_change) + "\"");
    }
    out << "  " << from << " -> " << to;
    for (std::size_t k = 0; k < attributes.size(); ++k) out << (k ? ", " : " [") << attributes[k];
    out << (attributes.empty() ? "" : "]") << ";\n";
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
