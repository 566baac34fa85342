// chain-parent-untrusted: Link rests on an artifact that failed its audit.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_parent_untrusted {

const RuleInfo kRule{
    .id = "chain-parent-untrusted",
    .name = "ChainParentUntrusted",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Link rests on an artifact that failed its audit",
    .explanation =
        "The parent_hash matches only an artifact that failed its own audit (for example "
        "a header whose declared content_hash was forged). A failed artifact's declared "
        "hash is never trusted for linking, so the link is unproven.",
    .remediation =
        "Fix or replace the parent artifact so that it passes ckpt-audit, then audit the "
        "history again.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  ForEachLink(graph, [&](std::size_t i, const ChainNode& node, const ChainNode& parent) {
    if (!graph.parent_untrusted[i]) return;
    std::string detail = parent.computed_hash ? "its recomputed hash is " + ShortHash(*parent.computed_hash)
                                              : std::string("its hash could not be recomputed");
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " names parent " + ShortHash(*node.parent_hash) + ", which only " +
                    NodeLabel(parent) + " matches, and that artifact failed its audit (" + detail +
                    "); its declared hash is not trusted for linking.");
  });
}

}  // namespace ckpt::rules::chain_parent_untrusted
