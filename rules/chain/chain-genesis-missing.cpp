// chain-genesis-missing: No genesis round.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_genesis_missing {

const RuleInfo kRule{
    .id = "chain-genesis-missing",
    .name = "ChainGenesisMissing",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "No genesis round",
    .explanation =
        "A history starts at exactly one round-0 artifact with parent_hash null (the "
        "genesis); without one the history cannot be anchored.",
    .remediation = "Add the genesis artifact to the set.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (graph.scope.empty()) return;
  for (std::size_t i : graph.scope) {
    // A history verified on top of an already-proven round starts at it (--trusted-parent).
    if (graph.nodes[i].is_genesis() || graph.OnTrustedParent(i)) return;
  }
  std::size_t earliest = graph.scope.front();
  for (std::size_t i : graph.scope) {
    if (graph.nodes[i].round_index.value_or(UINT64_MAX) < graph.nodes[earliest].round_index.value_or(UINT64_MAX))
      earliest = i;
  }
  const ChainNode& first = graph.nodes[earliest];
  sink.Report(kRule, earliest, first.parent_location,
              std::string(graph.lineage_only ? "The lineage of --head" : "The history") +
                  " has no genesis (round 0 with parent_hash null); its earliest artifact is " + NodeLabel(first) +
                  " " + ShortHash(first.ShownHash()) + ".");
}

}  // namespace ckpt::rules::chain_genesis_missing
