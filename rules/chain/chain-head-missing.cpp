// chain-head-missing: --head names no single artifact.
// Checked on the parent_hash history (ckpt-chain).
#include "rules/catalog.h"

namespace ckpt::rules::chain_head_missing {

const RuleInfo kRule{
    .id = "chain-head-missing",
    .name = "ChainHeadMissing",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "--head names no single artifact",
    .explanation =
        "--head must name exactly one artifact of the set by its content hash (or a "
        "unique prefix of at least 8 hex digits); otherwise there is no lineage to "
        "verify.",
    .remediation =
        "Pass the full content hash of the head round, and include its artifact in the "
        "paths.",
    .security = false,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  if (!graph.head_query || graph.head) return;
  const std::size_t matches = graph.head_matches;
  sink.Report(kRule, std::nullopt, Location{},
              "--head " + *graph.head_query +
                  (matches == 0 ? " names no artifact in the set."
                                : " matches " + std::to_string(matches) + " artifacts; give more digits."));
}

}  // namespace ckpt::rules::chain_head_missing
