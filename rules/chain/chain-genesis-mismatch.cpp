// chain-genesis-mismatch: Genesis differs from the pinned --genesis hash.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_genesis_mismatch {

const RuleInfo kRule{
    .id = "chain-genesis-mismatch",
    .name = "ChainGenesisMismatch",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Genesis differs from the pinned --genesis hash",
    .explanation =
        "INV-WARMSTART-T0: when a warm-start hash is pinned, the genesis artifact's "
        "recomputed content hash must equal it; otherwise the history does not start from"
        " the agreed weights.",
    .remediation = "Check that the right genesis artifact was published, or update the pinned hash.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (!graph.pinned_genesis) return;
  for (std::size_t i : graph.scope) {
    const ChainNode& node = graph.nodes[i];
    if (!node.is_genesis() || node.ShownHash() == *graph.pinned_genesis) continue;
    sink.Report(kRule, i, node.hash_location,
                "The genesis " + NodeLabel(node) + " has content hash " + node.ShownHash() + " but --genesis pins " +
                    *graph.pinned_genesis + ".");
  }
}

}  // namespace ckpt::rules::chain_genesis_mismatch
