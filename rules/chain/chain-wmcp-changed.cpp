// chain-wmcp-changed: wmcp_version changes along a link.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_wmcp_changed {

const RuleInfo kRule{
    .id = "chain-wmcp-changed",
    .name = "ChainWmcpChanged",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "wmcp_version changes along a link",
    .explanation =
        "INV-WMCP: a child round must be trained with its parent's WMCP version; a change"
        " along a link mixes incompatible rounds.",
    .remediation =
        "Start a new history (new genesis) for the new WMCP version, or republish the "
        "round with the parent's version.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (graph.allow_wmcp_change) return;  // a policy file allows it (allow_wmcp_change), and says so in reports
  ForEachLink(graph, [&](std::size_t i, const ChainNode& node, const ChainNode& parent) {
    if (!node.wmcp_version || !parent.wmcp_version || *node.wmcp_version == *parent.wmcp_version) return;
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " (" + ShortHash(node.ShownHash()) + ") has wmcp_version " +
                    QuoteForMessage(*node.wmcp_version) + " but its parent " + ShortHash(parent.ShownHash()) + " has " +
                    QuoteForMessage(*parent.wmcp_version) + ".");
  });
  for (std::size_t i : graph.scope) {
    const ChainNode& node = graph.nodes[i];
    if (!graph.OnTrustedParent(i) || !graph.trusted_parent_wmcp || !node.wmcp_version ||
        *node.wmcp_version == *graph.trusted_parent_wmcp) {
      continue;
    }
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " has wmcp_version " + QuoteForMessage(*node.wmcp_version) +
                    " but the trusted parent " + ShortHash(*graph.trusted_parent) + " has " +
                    QuoteForMessage(*graph.trusted_parent_wmcp) + ".");
  }
}

}  // namespace ckpt::rules::chain_wmcp_changed
