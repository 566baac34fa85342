// chain-fork: Two or more children of one parent.
// Checked on the parent_hash history (ckpt-chain).
#include <map>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_fork {

const RuleInfo kRule{
    .id = "chain-fork",
    .name = "ChainFork",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Two or more children of one parent",
    .explanation =
        "A federated history is linear: two different rounds naming the same parent are a"
        " fork, and only one of them can be the history.",
    .remediation =
        "Decide which branch is canonical and audit it with --head, or remove the other "
        "branch.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (graph.lineage_only) return;                            // --head ignores unrelated branches
  std::map<std::size_t, std::vector<std::size_t>> children;  // parent -> distinct children
  std::set<std::pair<std::size_t, std::string>> seen;
  for (std::size_t i : graph.scope) {
    if (!graph.parent_of[i]) continue;
    // The same artifact seen twice is a duplicate, not a fork.
    if (seen.emplace(*graph.parent_of[i], graph.nodes[i].ShownHash()).second)
      children[*graph.parent_of[i]].push_back(i);
  }
  // Told at each child: the branches are what is contested, while the parent's own content
  // may be intact (its row passes when its audit does).
  for (const auto& [parent, kids] : children) {
    if (kids.size() < 2) continue;
    const ChainNode& p = graph.nodes[parent];
    for (std::size_t k : kids) {
      std::string others;
      for (std::size_t other : kids) {
        if (other == k) continue;
        others += (others.empty() ? "" : ", ") + ShortHash(graph.nodes[other].ShownHash()) + " (" +
                  graph.nodes[other].path + ")";
      }
      const ChainNode& child = graph.nodes[k];
      sink.Report(kRule, k, child.parent_location,
                  NodeLabel(child) + " " + ShortHash(child.ShownHash()) + " is one of " + std::to_string(kids.size()) +
                      " children of " + NodeLabel(p) + " " + ShortHash(p.ShownHash()) + "; the other" +
                      (kids.size() > 2 ? "s: " : ": ") + others + ".");
    }
  }
}

}  // namespace ckpt::rules::chain_fork
