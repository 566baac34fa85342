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
  for (const auto& [parent, kids] : children) {
    if (kids.size() < 2) continue;
    std::string names;
    for (std::size_t k : kids) {
      names += (names.empty() ? "" : ", ") + ShortHash(graph.nodes[k].ShownHash()) + " (" + graph.nodes[k].path + ")";
    }
    const ChainNode& p = graph.nodes[parent];
    sink.Report(kRule, parent, p.hash_location,
                NodeLabel(p) + " " + ShortHash(p.ShownHash()) + " has " + std::to_string(kids.size()) +
                    " children: " + names + ".");
  }
}

}  // namespace ckpt::rules::chain_fork
