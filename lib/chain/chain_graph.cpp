#include "lib/chain/chain_graph.h"

#include <algorithm>

namespace ckpt {

std::string ChainNode::ShownHash() const {
  if (computed_hash) return *computed_hash;
  return declared_hash.value_or("");
}

bool ChainGraph::InScope(std::size_t node) const { return std::binary_search(scope.begin(), scope.end(), node); }

std::vector<std::size_t> ChainGraph::NodesWithLinkHash(const std::string& hash) const {
  auto it = by_link_hash.find(hash);
  return it == by_link_hash.end() ? std::vector<std::size_t>{} : it->second;
}

}  // namespace ckpt
