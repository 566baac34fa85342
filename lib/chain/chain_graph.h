// The parent_hash history of a set of audited artifacts (artifact-format.md section 8):
// what the chain rules in rules/chain/ read. Each node keeps only a summary of its audit,
// so memory grows with the number of artifacts, never with their bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/model/artifact.h"
#include "lib/model/finding.h"

namespace ckpt {

struct ChainNode {
  std::string path;                            ///< artifact directory as discovered
  std::vector<Finding> audit_findings;         ///< the artifact's own audit (ckpt-audit rules)
  std::vector<DroppedFindings> audit_dropped;  ///< counted, not kept (per-file cap, --max-findings)
  std::vector<AdmittedFile> files;             ///< what the audit read, with identities (and digests for SARIF)
  std::vector<std::string> weight_files;       ///< the names of `files` that hold weights
  InputKind kind = InputKind::kLensemble;      ///< a directory or a tar
  std::optional<std::pair<std::string, std::uint64_t>> container;  ///< the tar, for a tar round
  std::vector<std::string> tool_errors;                            ///< the artifact could not be audited
  bool audit_passed = false;                                       ///< audited, and no error-level finding
  std::optional<std::string> declared_hash;
  std::optional<std::string> computed_hash;
  bool parent_present = false;             ///< parent_hash read (string or null)
  std::optional<std::string> parent_hash;  ///< nullopt with parent_present: null (genesis)
  std::optional<std::uint64_t> round_index;
  std::optional<std::string> wmcp_version;
  std::optional<std::uint64_t> schema_version;  ///< as written
  std::optional<std::string> created_at;        ///< as written (absent from signed statements)
  /// A signed statement that was refused (its signature does not verify, or another key
  /// made it): round_index and declared_hash are what it claims, nothing more.
  bool refused_claims = false;
  /// A refused statement's declared_content_hash (its header's, which a child names) when it
  /// differs from the content hash it claims (a tampered round's recomputed hash).
  std::optional<std::string> claimed_header_hash;

  /// The hash children may link to: the recomputed hash of an artifact that passed its
  /// audit, or (with --no-hash) its declared hash. Failed artifacts offer none.
  std::optional<std::string> link_hash;
  /// Locations inside this artifact's header.json, for chain findings.
  Location parent_location;
  Location hash_location;

  [[nodiscard]] bool is_genesis() const { return parent_present && !parent_hash && round_index == 0u; }
  /// The best-known identity for reports: recomputed, else declared.
  [[nodiscard]] std::string ShownHash() const;
};

struct ChainEdge {
  std::size_t parent = 0;
  std::size_t child = 0;
  bool trusted = true;  ///< false: the parent failed its audit, the link rests on a declared hash
};

/// What the chain rules look at.
struct ChainGraph {
  std::vector<ChainNode> nodes;
  std::vector<ChainEdge> edges;
  /// For each node, the node its parent_hash resolves to (trusted or not), if any.
  std::vector<std::optional<std::size_t>> parent_of;
  /// For each node, whether parent_of rests on a failed (untrusted) parent.
  std::vector<bool> parent_untrusted;
  /// Nodes the analysis covers, sorted: all, or the lineage of --head.
  std::vector<std::size_t> scope;
  bool hashes_recomputed = true;
  std::optional<std::string> pinned_genesis;  ///< --genesis
  std::optional<std::string> head_query;      ///< --head as given
  std::optional<std::size_t> head;            ///< the node --head names
  std::size_t head_matches = 0;               ///< distinct artifacts --head matched (copies count once)
  bool lineage_only = false;                  ///< --head: unrelated branches are ignored
  bool allow_wmcp_change = false;             ///< a policy allows INV-WMCP changes (artifact-format.md section 8)
  std::optional<std::string> trusted_parent;  ///< --trusted-parent: an already-proven round's hash
  std::optional<std::uint64_t> trusted_parent_round;
  std::optional<std::string> trusted_parent_wmcp;
  /// Whether node `i` links to the trusted parent instead of a node of the set.
  [[nodiscard]] bool OnTrustedParent(std::size_t i) const {
    return trusted_parent && nodes[i].parent_hash && *nodes[i].parent_hash == *trusted_parent;
  }

  [[nodiscard]] bool InScope(std::size_t node) const;
  /// Link hash -> nodes offering it, in node order (filled by BuildChainGraph).
  std::map<std::string, std::vector<std::size_t>> by_link_hash;

  /// Nodes whose link hash equals `hash`, in node order.
  [[nodiscard]] std::vector<std::size_t> NodesWithLinkHash(const std::string& hash) const;
};

/// A chain finding is attached to a node (artifact), or to the run when `node` is empty.
struct ChainFinding {
  Finding finding;
  std::optional<std::size_t> node;
};

class ChainFindingSink {
 public:
  void Report(const RuleInfo& rule, std::optional<std::size_t> node, Location location, std::string message) {
    findings_.push_back(ChainFinding{Finding{&rule, std::move(location), std::move(message)}, node});
  }
  [[nodiscard]] std::vector<ChainFinding>& findings() { return findings_; }

 private:
  std::vector<ChainFinding> findings_;
};

}  // namespace ckpt
