// chain-gap: parent_hash names no artifact in the set.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_gap {

const RuleInfo kRule{
    .id = "chain-gap",
    .name = "ChainGap",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "parent_hash names no artifact in the set",
    .explanation =
        "A round's parent_hash must be the recomputed content hash of another artifact of"
        " the history; when no artifact has it, a round is missing (a gap) and the "
        "lineage cannot be proven back to genesis.",
    .remediation =
        "Add the missing round's artifact to the set, or check that the child names the "
        "right parent.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  for (std::size_t i : graph.scope) {
    const ChainNode& node = graph.nodes[i];
    if (!node.parent_hash || graph.parent_of[i] || graph.OnTrustedParent(i)) continue;
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " names parent_hash " + *node.parent_hash +
                    ", which no artifact in the set has: a gap in the history.");
  }
}

}  // namespace ckpt::rules::chain_gap
