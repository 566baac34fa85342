// ckpt-chain's job: discover artifacts, audit them in parallel, build and check the
// history, and decide verdicts and the exit code.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/verdict.h"
#include "lib/attest/ed25519.h"
#include "lib/chain/chain_analysis.h"

namespace ckpt {

struct ChainRunOptions {
  ChainOptions chain;
  /// --trusted-key: envelopes are discovered and each becomes a node from its verified
  /// statement (attestations.md section 3); nullopt: artifacts only.
  std::optional<attest::PublicKey> trusted_key;
  AuditOptions policy;  ///< per-artifact audit policy (compute_hash false with --no-hash)
  unsigned jobs = 1;    ///< artifacts audited in parallel
};

struct ChainRun {
  ChainGraph graph;
  std::vector<ChainFinding> findings;         ///< chain rules (audit findings stay on the nodes)
  std::vector<std::string> discovery_errors;  ///< the tool could not read a path: exit 2
  std::vector<std::size_t> history;           ///< scope nodes in history order
};

/// Runs every chain rule of the catalog; findings sorted by node, then rule.
std::vector<ChainFinding> CheckChain(const ChainGraph& graph);

/// Audits `paths` on `jobs` threads (each with its own bounded buffer), in input order.
std::vector<ChainNode> AuditArtifacts(std::span<const std::string> paths, const AuditOptions& policy, unsigned jobs);

ChainRun RunChain(const std::vector<std::string>& roots, const ChainRunOptions& options);

/// A node's verdict: error if it could not be audited, fail with any audit or chain finding
/// on it at or above the threshold, else pass.
Verdict NodeVerdict(const ChainRun& run, std::size_t node, FailThreshold threshold);

/// 2: discovery errors, unaudited artifacts or nothing found; 1: any finding in scope at or
/// above the threshold; 0 otherwise.
int ChainExitCode(const ChainRun& run, FailThreshold threshold);

}  // namespace ckpt
