// The rule catalog: every rule of ckpt-audit, declared once here (sorted by id) and
// defined in rules/<family>/<rule-id>.cpp with its documentation and, for rules checked
// after reading, its Check function. rules/registry.cpp lists them in the same order.
#pragma once

#include <span>
#include <string_view>

#include "lib/artifact/artifact.h"
#include "lib/chain/chain_graph.h"
#include "lib/findings/finding.h"

// A rule detected while a file is read: its RuleInfo only.
#define CKPT_RULE(ns)                  \
  namespace ns {                       \
  extern const ::ckpt::RuleInfo kRule; \
  }
// A rule checked on a parent_hash history (ckpt-chain).
#define CKPT_CHAIN_RULE(ns)                                                         \
  namespace ns {                                                                    \
  extern const ::ckpt::RuleInfo kRule;                                              \
  void CheckChain(const ::ckpt::ChainGraph& graph, ::ckpt::ChainFindingSink& sink); \
  }
// A rule checked on the comparison of two rounds (ckpt-diff).
#define CKPT_DIFF_RULE(ns)                                               \
  namespace ns {                                                         \
  extern const ::ckpt::RuleInfo kRule;                                   \
  void CheckDiff(const ::ckpt::DiffRun& run, ::ckpt::FindingSink& sink); \
  }
// A rule checked on the artifact model after reading.
#define CKPT_CHECKED_RULE(ns)                                              \
  namespace ns {                                                           \
  extern const ::ckpt::RuleInfo kRule;                                     \
  void Check(const ::ckpt::Artifact& artifact, ::ckpt::FindingSink& sink); \
  }

namespace ckpt {
struct DiffRun;  // lib/diff/diff.h
}  // namespace ckpt

namespace ckpt::rules {

CKPT_CHAIN_RULE(chain_cycle)
CKPT_CHAIN_RULE(chain_duplicate_artifact)
CKPT_CHAIN_RULE(chain_fork)
CKPT_CHAIN_RULE(chain_gap)
CKPT_CHAIN_RULE(chain_genesis_mismatch)
CKPT_CHAIN_RULE(chain_genesis_missing)
CKPT_CHAIN_RULE(chain_genesis_multiple)
CKPT_CHAIN_RULE(chain_head_missing)
CKPT_CHAIN_RULE(chain_links_unverified)
CKPT_CHAIN_RULE(chain_parent_untrusted)
CKPT_CHAIN_RULE(chain_round_not_consecutive)
CKPT_CHAIN_RULE(chain_wmcp_changed)
CKPT_DIFF_RULE(diff_change_not_allowed)
CKPT_DIFF_RULE(diff_not_child)
CKPT_DIFF_RULE(diff_rel_l2_exceeded)
CKPT_CHECKED_RULE(hash_mismatch)
CKPT_CHECKED_RULE(hash_not_verified)
CKPT_CHECKED_RULE(hash_unexpected)
CKPT_CHECKED_RULE(header_created_at_invalid)
CKPT_CHECKED_RULE(header_dtype_invalid)
CKPT_RULE(header_duplicate_key)
CKPT_RULE(header_field_type)
CKPT_CHECKED_RULE(header_hash_algorithm_unsupported)
CKPT_CHECKED_RULE(header_hash_format)
CKPT_RULE(header_json_syntax)
CKPT_RULE(header_json_too_deep)
CKPT_CHECKED_RULE(header_manifest_empty)
CKPT_RULE(header_manifest_entry_keys)
CKPT_CHECKED_RULE(header_manifest_order)
CKPT_RULE(header_missing_field)
CKPT_RULE(header_not_object)
CKPT_RULE(header_not_utf8)
CKPT_CHECKED_RULE(header_param_groups_invalid)
CKPT_CHECKED_RULE(header_parent_round_mismatch)
CKPT_RULE(header_schema_version_invalid)
CKPT_RULE(header_schema_version_missing)
CKPT_RULE(header_schema_version_too_new)
CKPT_CHECKED_RULE(header_tensor_group_prefix)
CKPT_CHECKED_RULE(header_tensor_group_undeclared)
CKPT_CHECKED_RULE(header_tensor_name_invalid)
CKPT_CHECKED_RULE(header_tensor_size_overflow)
CKPT_RULE(header_too_large)
CKPT_RULE(header_unknown_field)
CKPT_CHECKED_RULE(header_weight_files_invalid)
CKPT_CHECKED_RULE(header_wmcp_version_empty)
CKPT_RULE(index_duplicate_key)
CKPT_CHECKED_RULE(index_files_mismatch)
CKPT_RULE(index_json_invalid)
CKPT_RULE(index_json_too_deep)
CKPT_RULE(index_structure)
CKPT_CHECKED_RULE(index_tensor_unmapped)
CKPT_RULE(index_too_large)
CKPT_CHECKED_RULE(index_total_size)
CKPT_CHECKED_RULE(index_wrong_shard)
CKPT_CHECKED_RULE(layout_file_changed)
CKPT_CHECKED_RULE(layout_header_missing)
CKPT_CHECKED_RULE(layout_index_missing)
CKPT_CHECKED_RULE(layout_mixed)
CKPT_CHECKED_RULE(layout_no_weights)
CKPT_CHECKED_RULE(layout_shard_numbering)
CKPT_CHECKED_RULE(layout_stray_entry)
CKPT_CHECKED_RULE(layout_symlink)
CKPT_CHECKED_RULE(manifest_dtype_mismatch)
CKPT_CHECKED_RULE(manifest_shape_mismatch)
CKPT_CHECKED_RULE(manifest_tensor_missing)
CKPT_CHECKED_RULE(manifest_tensor_unlisted)
CKPT_CHECKED_RULE(path_escape)
CKPT_CHECKED_RULE(residency_action_head)
CKPT_CHECKED_RULE(residency_group_not_shared)
CKPT_CHECKED_RULE(residency_policy_widened)
CKPT_RULE(safetensors_buffer_size)
CKPT_RULE(safetensors_dtype_not_allowed)
CKPT_RULE(safetensors_dtype_unknown)
CKPT_RULE(safetensors_duplicate_tensor)
CKPT_RULE(safetensors_header_json)
CKPT_RULE(safetensors_header_not_utf8)
CKPT_RULE(safetensors_header_past_end)
CKPT_RULE(safetensors_header_too_deep)
CKPT_RULE(safetensors_header_too_large)
CKPT_RULE(safetensors_header_too_small)
CKPT_RULE(safetensors_metadata_duplicate_key)
CKPT_RULE(safetensors_metadata_invalid)
CKPT_RULE(safetensors_noncanonical_whitespace)
CKPT_RULE(safetensors_offsets_not_contiguous)
CKPT_RULE(safetensors_size_misaligned)
CKPT_RULE(safetensors_size_mismatch)
CKPT_RULE(safetensors_size_overflow)
CKPT_RULE(safetensors_tensor_entry_invalid)
CKPT_RULE(safetensors_tensor_name_invalid)
CKPT_RULE(weights_file_empty)
CKPT_CHECKED_RULE(weights_files_mismatch)
CKPT_RULE(weights_format_gguf)
CKPT_RULE(weights_format_git_lfs_pointer)
CKPT_RULE(weights_format_html)
CKPT_RULE(weights_format_numpy)
CKPT_RULE(weights_format_pickle)
CKPT_RULE(weights_format_zip)
CKPT_CHECKED_RULE(weights_metadata_content_hash)
CKPT_CHECKED_RULE(weights_metadata_schema_version)
CKPT_CHECKED_RULE(weights_tensor_in_two_files)

/// What a rule looks at.
enum class RuleScope {
  kArtifact,  ///< one artifact (ckpt-audit and every tool that audits artifacts)
  kChain,     ///< a parent_hash history (ckpt-chain)
  kDiff,      ///< two rounds compared (ckpt-diff)
};

/// One entry of the registry.
struct RuleEntry {
  const RuleInfo* info;
  void (*check)(const Artifact&, FindingSink&);               ///< artifact rules checked after reading
  void (*chain_check)(const ChainGraph&, ChainFindingSink&);  ///< chain rules
  void (*diff_check)(const DiffRun&, FindingSink&);           ///< diff rules (gates)
  std::string_view source;                                    ///< rules/<family>/<rule-id>.cpp
  [[nodiscard]] RuleScope scope() const {
    return chain_check ? RuleScope::kChain : diff_check ? RuleScope::kDiff : RuleScope::kArtifact;
  }
};

/// Every rule, sorted by id.
std::span<const RuleEntry> AllRules();
/// The rule with this id, or nullptr.
const RuleInfo* FindRule(std::string_view id);

}  // namespace ckpt::rules

#undef CKPT_RULE
#undef CKPT_CHECKED_RULE
#undef CKPT_CHAIN_RULE
#undef CKPT_DIFF_RULE
