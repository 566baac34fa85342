// The transparency-log evidence of a keyless model signature, checked offline: each Rekor
// entry of the bundle must be of the trusted root's logs, record this payload, signature and
// certificate, and every proof it carries must hold (the signed entry timestamp; the RFC 9162
// inclusion proof and its signed checkpoint). The signing time is a SET's integratedTime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/json/json_value.h"
#include "lib/oms/trusted_root.h"

namespace ckpt::oms {

struct TlogVerdict {
  std::optional<std::string> error;  ///< why the evidence does not hold (a sentence fragment)
  std::size_t entry = 0;             ///< the 1-based entry `error` is about (0: the bundle's entries as a whole)
  std::uint64_t offset = 0;          ///< where in the bundle that entry (or the entries) begins
  std::optional<std::int64_t> integrated_time;  ///< seconds since the epoch, from the first entry with a SET
  std::string log_url;                          ///< that entry's log
};

/// Checks `entries` (the bundle's tlogEntries array; absent: none) for the envelope whose
/// decoded payload and signature are given, signed with `certificate` (DER).
TlogVerdict VerifyTlogEntries(const std::optional<json::Value>& entries, const TrustedRoot& root,
                              std::string_view payload, std::string_view signature, std::string_view certificate);

/// RFC 9162 2.1.3.2: whether `path` proves `leaf_hash` at `index` in a tree of `tree_size`
/// whose root is `root_hash` (32-byte SHA-256 values).
bool VerifyInclusionPath(std::uint64_t index, std::uint64_t tree_size, std::string_view leaf_hash,
                         const std::vector<std::string>& path, std::string_view root_hash);

/// A signed note (a checkpoint): the error says why `note` is not signed by `log` for
/// `tree_size` and `root_hash`; nullopt when it is.
std::optional<std::string> VerifyCheckpoint(std::string_view note, const LogKey& log, std::uint64_t tree_size,
                                            std::string_view root_hash);

}  // namespace ckpt::oms
