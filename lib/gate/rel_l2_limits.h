// Per-part limits on how far a round may move a tensor (ckpt-diff --max-rel-l2 and the
// policy file's max_rel_l2): "X" for every tensor, "PATTERN=X" for a group or names. The
// most specific matching pattern decides, so "encoder=0" freezes the encoder while
// "predictor.*=0.05" lets the predictor train.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ckpt {

struct RelL2Limit {
  std::string pattern = "*";  ///< "*": every tensor
  double limit = 0;           ///< finite, >= 0; 0 freezes: no change of any kind is allowed
};

/// "X" (pattern "*") or "PATTERN=X", split at the last '='; the error says what is wrong.
std::variant<RelL2Limit, std::string> ParseRelL2Limit(std::string_view text);

/// True when `pattern` names the tensor: its manifest group exactly, its name exactly or as a
/// dotted prefix ("encoder.layers" covers "encoder.layers.3.w"), or its name as an fnmatch(3)
/// glob in which '*' also crosses '.'.
bool RelL2PatternMatches(std::string_view pattern, std::string_view name, std::string_view group);

/// How specific a pattern is: its count of characters that are not wildcards ("*", "?",
/// bracket expressions count as one wildcard), so an exact name outranks a prefix, which
/// outranks a group, which outranks "*".
std::size_t RelL2PatternSpecificity(std::string_view pattern);

/// The limit in force for a tensor: the most specific matching pattern; among equally
/// specific ones the smallest limit (the stricter reading). nullptr when none matches.
/// `groups` are the tensor's groups on either side (a group may change between rounds).
const RelL2Limit* RelL2LimitFor(const std::vector<RelL2Limit>& limits, std::string_view name,
                                const std::vector<std::string_view>& groups);

/// `limits` with each of `overrides` replacing the entry of the same pattern (or added).
std::vector<RelL2Limit> MergeRelL2Limits(std::vector<RelL2Limit> limits, const std::vector<RelL2Limit>& overrides);

}  // namespace ckpt
