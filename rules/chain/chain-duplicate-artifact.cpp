// chain-duplicate-artifact: Same artifact found twice.
// Checked on the parent_hash history (ckpt-chain).
#include <map>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_duplicate_artifact {

const RuleInfo kRule{
    .id = "chain-duplicate-artifact",
    .name = "ChainDuplicateArtifact",
    .code = Code::kChainIntegrity,
    .severity = Severity::kNote,
    .title = "Same artifact found twice",
    .explanation =
        "Two paths hold artifacts with the same content hash: one node of the history "
        "seen twice. Harmless, but worth knowing (a copy left behind, or a round "
        "published twice).",
    .remediation = "Remove the extra copy if it is not intended.",
    .security = false,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  std::map<std::string, std::size_t> first_with;
  for (std::size_t i : graph.scope) {
    const std::string hash = graph.nodes[i].ShownHash();
    if (hash.empty()) continue;
    auto [it, inserted] = first_with.emplace(hash, i);
    if (inserted) continue;
    sink.Report(kRule, i, graph.nodes[i].hash_location,
                graph.nodes[i].path + " is the same artifact (" + ShortHash(hash) + ") as " +
                    graph.nodes[it->second].path + ".");
  }
}

}  // namespace ckpt::rules::chain_duplicate_artifact
