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
    .tier = Tier::kConsequence,  // its cause is the parent's own failure, reported above it
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  ForEachLink(graph, [&](std::size_t i, const ChainNode& node, const ChainNode& parent) {
    if (!graph.parent_untrusted[i]) return;
    if (parent.refused_claims) {
      // A signed statement that was refused: the child is told which envelope and why, so a
      // forged or foreign-signed round is not read as a missing one.
      std::string why = "it was refused";
      for (const Finding& f : parent.audit_findings) {
        if (f.counts() && f.severity() == Severity::kError) {
          why = std::string(f.rule->title) + " [" + std::string(f.rule->id) + "]";
          if (!why.empty() && why[0] >= 'A' && why[0] <= 'Z') why[0] = static_cast<char>(why[0] - 'A' + 'a');
          break;
        }
      }
      sink.Report(kRule, i, node.parent_location,
                  NodeLabel(node) + " names parent " + ShortHash(*node.parent_hash) + ", which only the refused " +
                      "signed statement " + parent.path + " claims (as " +
                      (parent.round_index ? "round " + std::to_string(*parent.round_index) : std::string("no round")) +
                      "): " + why + ". A statement no trusted signature vouches for proves nothing.");
      return;
    }
    std::string detail = parent.computed_hash ? "its recomputed hash is " + ShortHash(*parent.computed_hash)
                                              : std::string("its hash could not be recomputed");
    sink.Report(kRule, i, node.parent_location,
                NodeLabel(node) + " names parent " + ShortHash(*node.parent_hash) + ", which only " +
                    NodeLabel(parent) + " matches, and that artifact failed its audit (" + detail +
                    "); its declared hash is not trusted for linking.");
  });
}

}  // namespace ckpt::rules::chain_parent_untrusted
