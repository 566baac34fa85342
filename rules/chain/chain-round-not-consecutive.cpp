// chain-round-not-consecutive: Child round is not its parent's round + 1.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_round_not_consecutive {

const RuleInfo kRule{
    .id = "chain-round-not-consecutive",
    .name = "ChainRoundNotConsecutive",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Child round is not its parent's round + 1",
    .explanation =
        "Along a parent link, round_index must grow by exactly one; a jump or a repeat "
        "means rounds were skipped, replayed or renumbered.",
    .remediation = "Check the round numbering of the writer; republish the affected rounds.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  ForEachLink(graph, [&](std::size_t i, const ChainNode& node, const ChainNode& parent) {
    if (!node.round_index || !parent.round_index) return;
    if (*parent.round_index != UINT64_MAX && *node.round_index == *parent.round_index + 1) return;
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " (" + ShortHash(node.ShownHash()) + ") has round_index " +
                    std::to_string(*node.round_index) + " but its parent " + ShortHash(parent.ShownHash()) +
                    " is round " + std::to_string(*parent.round_index) + "; a child is its parent's round + 1.");
  });
  // A child of the trusted parent, when a signed statement gave that round.
  for (std::size_t i : graph.scope) {
    const ChainNode& node = graph.nodes[i];
    if (!graph.OnTrustedParent(i) || !graph.trusted_parent_round || !node.round_index) continue;
    if (*graph.trusted_parent_round != UINT64_MAX && *node.round_index == *graph.trusted_parent_round + 1) continue;
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " has round_index " + std::to_string(*node.round_index) + " but the trusted parent " +
                    ShortHash(*graph.trusted_parent) + " is round " + std::to_string(*graph.trusted_parent_round) +
                    "; a child is its parent's round + 1.");
  }
}

}  // namespace ckpt::rules::chain_round_not_consecutive
