// chain-genesis-multiple: More than one genesis round.
// Checked on the parent_hash history (ckpt-chain).
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_genesis_multiple {

const RuleInfo kRule{
    .id = "chain-genesis-multiple",
    .name = "ChainGenesisMultiple",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "More than one genesis round",
    .explanation =
        "A history has exactly one genesis; two round-0 artifacts with parent_hash null "
        "are two unrelated histories mixed together.",
    .remediation = "Audit each history separately, or remove the stray genesis.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (graph.lineage_only) return;
  std::optional<std::size_t> first;
  std::set<std::string> hashes;
  for (std::size_t i : graph.scope) {
    const ChainNode& node = graph.nodes[i];
    if (!node.is_genesis() || !hashes.insert(node.ShownHash()).second) continue;  // duplicates are one genesis
    if (!first) {
      first = i;
      continue;
    }
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " " + ShortHash(node.ShownHash()) + " is a second genesis; the first is " +
                    NodeLabel(graph.nodes[*first]) + " " + ShortHash(graph.nodes[*first].ShownHash()) + ".");
  }
}

}  // namespace ckpt::rules::chain_genesis_multiple
