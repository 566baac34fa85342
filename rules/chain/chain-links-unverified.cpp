// chain-links-unverified: Links checked on declared hashes only (--no-hash).
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"

namespace ckpt::rules::chain_links_unverified {

const RuleInfo kRule{
    .id = "chain-links-unverified",
    .name = "ChainLinksUnverified",
    .code = Code::kChainIntegrity,
    .severity = Severity::kWarning,
    .title = "Links checked on declared hashes only (--no-hash)",
    .explanation =
        "With --no-hash no content hash was recomputed: every link was checked against "
        "the hashes the headers declare, which a forger controls. The history's structure"
        " is consistent, but nothing proves the bytes.",
    .remediation = "Run without --no-hash to verify the links against recomputed hashes.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (graph.hashes_recomputed || graph.nodes.empty()) return;
  sink.Report(kRule, std::nullopt, Location{},
              "No content hash was recomputed (--no-hash): the " + std::to_string(graph.scope.size()) +
                  " links were checked on declared hashes only.");
}

}  // namespace ckpt::rules::chain_links_unverified
