#include "lib/chain/chain_analysis.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace ckpt {
namespace {

Location WithArtifact(Location loc, const std::string& path) {
  loc.artifact = path;
  return loc;
}

// --head names an artifact by the hash it can be trusted for: the recomputed hash of an
// artifact that passed its audit (its link hash). Copies share that hash and are one node,
// so they resolve to the first; a decoy that only claims the hash fails its audit and
// offers none. Only when no trusted artifact matches is a failed one named (by recomputed
// or declared hash), so its own lineage can still be shown. Returns the distinct matches.
std::vector<std::size_t> MatchHead(const std::vector<ChainNode>& nodes, const std::string& query) {
  auto starts = [&](const std::optional<std::string>& h) { return h && h->compare(0, query.size(), query) == 0; };
  std::map<std::string, std::size_t> trusted;  // link hash -> first node offering it
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (starts(nodes[i].link_hash)) trusted.emplace(*nodes[i].link_hash, i);
  }
  std::vector<std::size_t> matches;
  matches.reserve(trusted.size());
  for (const auto& [hash, node] : trusted) matches.push_back(node);
  if (!matches.empty()) return matches;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].link_hash && (starts(nodes[i].computed_hash) || starts(nodes[i].declared_hash))) matches.push_back(i);
  }
  return matches;
}

}  // namespace

ChainNode SummarizeAudit(AuditResult&& result, bool hashes_recomputed) {
  ChainNode node;
  const Artifact& a = result.artifact;
  node.path = a.path;
  node.tool_errors = std::move(result.tool_errors);
  node.audit_findings = std::move(result.findings);
  node.audit_dropped = std::move(result.dropped);
  for (const WeightFile* wf : a.ListedWeightFiles()) node.weight_files.push_back(wf->name);
  node.files = std::move(result.artifact.files);
  node.kind = result.artifact.kind;
  node.container = result.artifact.container;
  node.audit_passed = node.tool_errors.empty() &&
                      std::none_of(node.audit_findings.begin(), node.audit_findings.end(),
                                   [](const Finding& f) { return f.counts() && f.severity() == Severity::kError; }) &&
                      std::none_of(node.audit_dropped.begin(), node.audit_dropped.end(), [](const DroppedFindings& d) {
                        return d.counts() && d.severity() == Severity::kError;
                      });
  node.computed_hash = a.computed_hash;
  node.parent_location.artifact = node.hash_location.artifact = node.path;
  node.parent_location.file = node.hash_location.file = "header.json";
  if (a.header) {
    node.schema_version = a.header->schema_version;
    node.created_at = a.header->created_at;
  }
  if (a.header && a.header->version_supported) {
    const Header& h = *a.header;
    node.declared_hash = h.content_hash;
    node.parent_present = h.parent_hash_present;
    node.parent_hash = h.parent_hash;
    node.round_index = h.round_index;
    node.wmcp_version = h.wmcp_version;
    node.parent_location = WithArtifact(h.FieldLocation("parent_hash"), node.path);
    node.hash_location = WithArtifact(h.FieldLocation("content_hash"), node.path);
  }
  if (node.audit_passed) node.link_hash = hashes_recomputed ? node.computed_hash : node.declared_hash;
  return node;
}

ChainGraph BuildChainGraph(std::vector<ChainNode> nodes, const ChainOptions& options) {
  ChainGraph graph;
  graph.nodes = std::move(nodes);
  graph.hashes_recomputed = options.hashes_recomputed;
  graph.pinned_genesis = options.genesis;
  graph.head_query = options.head;
  graph.allow_wmcp_change = options.allow_wmcp_change;
  graph.trusted_parent = options.trusted_parent;
  graph.trusted_parent_round = options.trusted_parent_round;
  graph.trusted_parent_wmcp = options.trusted_parent_wmcp;
  const std::size_t n = graph.nodes.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (graph.nodes[i].link_hash) graph.by_link_hash[*graph.nodes[i].link_hash].push_back(i);
  }
  // Failed artifacts, by every hash they could be named by: a child pointing at one is
  // reported, never linked as if the parent were sound.
  std::map<std::string, std::size_t> failed_by_hash;
  for (std::size_t i = 0; i < n; ++i) {
    const ChainNode& node = graph.nodes[i];
    if (node.link_hash) continue;
    if (node.declared_hash) failed_by_hash.emplace(*node.declared_hash, i);
    if (node.computed_hash) failed_by_hash.emplace(*node.computed_hash, i);
    if (node.claimed_header_hash) failed_by_hash.emplace(*node.claimed_header_hash, i);
  }
  graph.parent_of.assign(n, std::nullopt);
  graph.parent_untrusted.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const ChainNode& node = graph.nodes[i];
    if (!node.parent_hash) continue;
    if (auto it = graph.by_link_hash.find(*node.parent_hash); it != graph.by_link_hash.end()) {
      graph.parent_of[i] = it->second.front();
      graph.edges.push_back({it->second.front(), i, true});
    } else if (auto failed = failed_by_hash.find(*node.parent_hash); failed != failed_by_hash.end()) {
      graph.parent_of[i] = failed->second;
      graph.parent_untrusted[i] = true;
      graph.edges.push_back({failed->second, i, false});
    }
  }

  if (options.head) {
    graph.lineage_only = true;
    std::vector<std::size_t> matches = MatchHead(graph.nodes, *options.head);
    graph.head_matches = matches.size();
    if (matches.size() == 1) {
      graph.head = matches.front();
      std::vector<bool> seen(n, false);
      for (std::optional<std::size_t> at = graph.head; at && !seen[*at]; at = graph.parent_of[*at]) {
        seen[*at] = true;
        graph.scope.push_back(*at);
      }
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) graph.scope.push_back(i);
  }
  std::sort(graph.scope.begin(), graph.scope.end());
  return graph;
}

std::vector<std::size_t> HistoryOrder(const ChainGraph& graph) {
  std::vector<std::size_t> order = graph.scope;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ChainNode& x = graph.nodes[a];
    const ChainNode& y = graph.nodes[b];
    return std::tuple(x.round_index.value_or(UINT64_MAX), x.ShownHash(), x.path) <
           std::tuple(y.round_index.value_or(UINT64_MAX), y.ShownHash(), y.path);
  });
  return order;
}

}  // namespace ckpt
