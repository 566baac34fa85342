// Comparing two audited rounds: their headers, their parent link and every tensor of the
// union of their manifests (engine/diff_run.h audits them and runs the gates).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/diff/tensor_stats.h"
#include "lib/digest/content_hash.h"
#include "lib/gate/rel_l2_limits.h"
#include "lib/model/audit_result.h"

namespace ckpt {

enum class TensorStatus {
  kUnchanged,      ///< same dtype, shape, group and bytes
  kChanged,        ///< same dtype and shape (and group), different bytes: stats computed
  kLayoutChanged,  ///< dtype, shape or group differ
  kAdded,          ///< only in B
  kRemoved,        ///< only in A
  kUnreadable,     ///< same layout, but the bytes of one side cannot be located (see its audit)
};
std::string_view TensorStatusName(TensorStatus status);

/// One side of a tensor: its manifest layout and where its bytes are (when readable). The
/// layout is viewed, not copied (10^5 tensors held two copies of every layout): group, dtype and
/// shape point into the artifact the side was read from, or at static dtype names, and stay
/// valid while that artifact lives, moves included.
struct TensorSide {
  std::string_view group;
  std::string_view dtype;  ///< manifest token
  std::span<const std::uint64_t> shape;
  const RandomAccessFile* file = nullptr;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct TensorDiff {
  std::string name;
  TensorStatus status = TensorStatus::kUnchanged;
  std::optional<TensorSide> a;
  std::optional<TensorSide> b;
  std::optional<DiffStats> stats;  ///< kChanged only
  /// Sum of a^2 over A's finite elements, for every compared tensor with statistics
  /// (unchanged ones too): what rolled-up relative L2 figures divide by.
  std::optional<CompensatedSum> a_squared;
};

struct HeaderFieldDiff {
  std::string field;
  std::optional<std::string> a;  ///< compact JSON; nullopt when absent
  std::optional<std::string> b;
};

struct LinkVerdict {
  std::optional<std::string> a_hash;    ///< A's recomputed hash (declared with --no-hash)
  std::optional<std::string> b_parent;  ///< B's parent_hash (nullopt: null or unreadable)
  std::optional<std::uint64_t> a_round;
  std::optional<std::uint64_t> b_round;
  bool parent_matches = false;
  bool round_follows = false;
  [[nodiscard]] bool is_child() const { return parent_matches && round_follows; }
};

struct DiffOptions {
  AuditOptions policy;
  unsigned jobs = 1;
  std::vector<std::string> allow_change;  ///< --allow-change globs (fnmatch; '*' also matches '.')
  std::vector<RelL2Limit> max_rel_l2;     ///< --max-rel-l2 and the policy's max_rel_l2
  bool require_child = false;             ///< --require-child
  // What the reports show (the comparison itself is the same):
  unsigned rollup_depth = 2;  ///< --rollup N: name components per prefix roll-up (0: none)
  std::size_t top = 10;       ///< --top K: changed tensors listed as moving most
  bool top_given = false;     ///< --top was given: the tensor table holds those K alone
  bool changed_only = false;  ///< --changed-only: unchanged tensors are counted, not listed
};

struct DiffRun {
  DiffOptions options;
  AuditResult a;
  AuditResult b;
  std::vector<HeaderFieldDiff> header;
  LinkVerdict link;
  std::vector<TensorDiff> tensors;       ///< sorted by name
  std::vector<Finding> findings;         ///< the gates (diff-* rules); audit findings stay in `a` and `b`
  std::vector<DroppedFindings> dropped;  ///< gate findings counted, not kept (per-file cap)
};

/// The tensor table of two rounds: the union of their tensors, with a status for each
/// (kChanged marks a pair to compare: same layout, both readable).
std::vector<TensorDiff> BuildTensorDiffs(const Artifact& a, const Artifact& b);

/// Both content hashes of the fused pass (a side without a plan has neither).
struct FusedHashes {
  struct Side {
    std::optional<std::string> hash;
    std::optional<boost::system::error_code> error;  ///< a read failed (kFileChangedErrno: it changed)
    /// In: the whole-file digests wanted for this side (SARIF), fed from the pass's own
    /// windows; out: those the pass covered in order carry their sha256.
    std::span<FileDigestRequest> digests;
  };
  Side a;
  Side b;
};

/// Compares the kChanged pairs of `tensors` and computes each side's content hash from its
/// plan, reading every byte once: both hashes run in name order, so the two sides step
/// through compared tensors window by window together (`jobs` >= 2: one thread a side,
/// each hashing its own window and computing half of the statistics).
void FusedHashAndCompare(std::vector<TensorDiff>& tensors, const HashPlan* plan_a, const HashPlan* plan_b,
                         unsigned jobs, FusedHashes& out);

/// Compares the kChanged pairs of `tensors` (no hashing): bytes first, stopping at the first
/// difference; statistics for changed tensors, window by window on `jobs` threads.
void CompareTensors(std::vector<TensorDiff>& tensors, unsigned jobs);

/// A DiffRun from two finished audits and their compared tensors: header diff and link.
DiffRun AssembleDiff(AuditResult a, AuditResult b, std::vector<TensorDiff> tensors, const DiffOptions& options);

}  // namespace ckpt
