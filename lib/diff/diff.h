// Comparing two audited rounds: their headers, their parent link and every tensor of the
// union of their manifests (engine/diff_run.h audits them and runs the gates).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/artifact/audit_result.h"
#include "lib/diff/tensor_stats.h"

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

/// One side of a tensor: its manifest layout and where its bytes are (when readable).
struct TensorSide {
  std::string group;
  std::string dtype;  ///< manifest token
  std::vector<std::uint64_t> shape;
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
  Policy policy;
  unsigned jobs = 1;
  std::vector<std::string> allow_change;  ///< --allow-change globs (fnmatch; '*' also matches '.')
  std::optional<double> max_rel_l2;       ///< --max-rel-l2
  bool require_child = false;             ///< --require-child
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

/// Compares two audited rounds (weight files still open: KeepFiles::kOpen): header fields,
/// the parent link, and every tensor, streaming both weight sets once in bounded memory
/// (`options.jobs` threads, two 4 MiB windows each). Runs no rule.
DiffRun CompareAudited(AuditResult a, AuditResult b, const DiffOptions& options);

}  // namespace ckpt
