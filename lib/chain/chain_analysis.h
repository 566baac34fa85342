// Builds the parent_hash graph of audited artifacts and runs the catalog's chain rules.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/chain/chain_graph.h"
#include "lib/model/audit_result.h"

namespace ckpt {

struct ChainOptions {
  bool hashes_recomputed = true;       ///< false with --no-hash: links rest on declared hashes
  std::optional<std::string> genesis;  ///< --genesis: pinned warm-start hash (INV-WARMSTART-T0)
  std::optional<std::string> head;     ///< --head: a hash or unique prefix (at least 8 hex digits)
  bool allow_wmcp_change = false;      ///< a policy allows wmcp_version to change along a link
  /// --trusted-parent: the content hash of an already-proven round; children naming it link
  /// to it (no gap, no missing genesis), with its round and wmcp_version when a signed
  /// statement gave them.
  std::optional<std::string> trusted_parent;
  std::optional<std::uint64_t> trusted_parent_round;
  std::optional<std::string> trusted_parent_wmcp;
};

/// Keeps what the chain needs from one artifact's audit (and nothing that grows with its
/// bytes: no open files, no JSON document).
ChainNode SummarizeAudit(AuditResult&& result, bool hashes_recomputed);

/// Resolves every parent_hash to a node (trusted: the parent passed its audit and offers
/// that hash; untrusted: only a failed artifact's declared or recomputed hash matches) and
/// fixes the scope (all nodes, or the lineage of --head back to genesis).
ChainGraph BuildChainGraph(std::vector<ChainNode> nodes, const ChainOptions& options);

/// Scope nodes in history order: round, then hash, then path.
std::vector<std::size_t> HistoryOrder(const ChainGraph& graph);

}  // namespace ckpt
