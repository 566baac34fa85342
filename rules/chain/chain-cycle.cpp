// chain-cycle: Cycle of declared parent hashes.
// Checked on the parent_hash history (ckpt-chain).
#include <algorithm>
#include <map>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::chain_cycle {

const RuleInfo kRule{
    .id = "chain-cycle",
    .name = "ChainCycle",
    .code = Code::kChainIntegrity,
    .severity = Severity::kError,
    .title = "Cycle of declared parent hashes",
    .explanation =
        "Following declared parent_hash values leads back to an artifact already visited."
        " Real content hashes cannot form a cycle, so the headers were forged.",
    .remediation =
        "Treat every artifact of the cycle as tampered; obtain the history again from its"
        " producer.",
    .security = true,
};

void CheckChain(const ChainGraph& graph, ChainFindingSink& sink) {
  // Each node names at most one parent by declared hash: a functional graph, walked once.
  std::map<std::string, std::size_t> by_declared;
  for (std::size_t i : graph.scope) {
    if (graph.nodes[i].declared_hash) by_declared.emplace(*graph.nodes[i].declared_hash, i);
  }
  std::map<std::size_t, int> state;  // 1: on the current walk, 2: done
  for (std::size_t start : graph.scope) {
    std::vector<std::size_t> walk;
    std::optional<std::size_t> at = start;
    while (at && state[*at] == 0) {
      state[*at] = 1;
      walk.push_back(*at);
      const ChainNode& node = graph.nodes[*at];
      auto it = node.parent_hash ? by_declared.find(*node.parent_hash) : by_declared.end();
      at = it == by_declared.end() ? std::nullopt : std::optional<std::size_t>(it->second);
    }
    if (at && state[*at] == 1) {  // closed a cycle on this walk
      std::string names;
      auto from = std::find(walk.begin(), walk.end(), *at);
      for (auto it = from; it != walk.end(); ++it) {
        names += (names.empty() ? "" : " -> ") + ShortHash(graph.nodes[*it].declared_hash.value_or(""));
      }
      const ChainNode& node = graph.nodes[*at];
      sink.Report(kRule, *at, node.parent_location,
                  "Declared parent hashes form a cycle: " + names + " -> " +
                      ShortHash(node.declared_hash.value_or("")) + " (" + std::to_string(walk.end() - from) +
                      " artifacts, starting at " + node.path + ").");
    }
    for (std::size_t i : walk) state[i] = 2;
  }
}

}  // namespace ckpt::rules::chain_cycle
