// The explicit, sorted rule table (no static self-registration: the order and the
// complete list are visible here, and tests/rule_catalog_test.cpp checks both).
#include <algorithm>
#include <array>

#include "rules/catalog.h"

namespace ckpt::rules {
namespace {

const RuleEntry kRules[] = {
    {&chain_cycle::kRule, nullptr, &chain_cycle::CheckChain, nullptr, "rules/chain/chain-cycle.cpp"},
    {&chain_duplicate_artifact::kRule, nullptr, &chain_duplicate_artifact::CheckChain, nullptr, "rules/chain/chain-duplicate-artifact.cpp"},
    {&chain_fork::kRule, nullptr, &chain_fork::CheckChain, nullptr, "rules/chain/chain-fork.cpp"},
    {&chain_gap::kRule, nullptr, &chain_gap::CheckChain, nullptr, "rules/chain/chain-gap.cpp"},
    {&chain_genesis_mismatch::kRule, nullptr, &chain_genesis_mismatch::CheckChain, nullptr, "rules/chain/chain-genesis-mismatch.cpp"},
    {&chain_genesis_missing::kRule, nullptr, &chain_genesis_missing::CheckChain, nullptr, "rules/chain/chain-genesis-missing.cpp"},
    {&chain_genesis_multiple::kRule, nullptr, &chain_genesis_multiple::CheckChain, nullptr, "rules/chain/chain-genesis-multiple.cpp"},
    {&chain_head_missing::kRule, nullptr, &chain_head_missing::CheckChain, nullptr, "rules/chain/chain-head-missing.cpp"},
    {&chain_links_unverified::kRule, nullptr, &chain_links_unverified::CheckChain, nullptr, "rules/chain/chain-links-unverified.cpp"},
    {&chain_parent_untrusted::kRule, nullptr, &chain_parent_untrusted::CheckChain, nullptr, "rules/chain/chain-parent-untrusted.cpp"},
    {&chain_round_not_consecutive::kRule, nullptr, &chain_round_not_consecutive::CheckChain, nullptr, "rules/chain/chain-round-not-consecutive.cpp"},
    {&chain_wmcp_changed::kRule, nullptr, &chain_wmcp_changed::CheckChain, nullptr, "rules/chain/chain-wmcp-changed.cpp"},
    {&diff_change_not_allowed::kRule, nullptr, nullptr, &diff_change_not_allowed::CheckDiff, "rules/diff/diff-change-not-allowed.cpp"},
    {&diff_not_child::kRule, nullptr, nullptr, &diff_not_child::CheckDiff, "rules/diff/diff-not-child.cpp"},
    {&diff_rel_l2_exceeded::kRule, nullptr, nullptr, &diff_rel_l2_exceeded::CheckDiff, "rules/diff/diff-rel-l2-exceeded.cpp"},
    {&hash_mismatch::kRule, &hash_mismatch::Check, nullptr, nullptr, "rules/hash/hash-mismatch.cpp"},
    {&hash_unexpected::kRule, &hash_unexpected::Check, nullptr, nullptr, "rules/hash/hash-unexpected.cpp"},
    {&header_created_at_invalid::kRule, &header_created_at_invalid::Check, nullptr, nullptr, "rules/header/header-created-at-invalid.cpp"},
    {&header_dtype_invalid::kRule, &header_dtype_invalid::Check, nullptr, nullptr, "rules/header/header-dtype-invalid.cpp"},
    {&header_duplicate_key::kRule, nullptr, nullptr, nullptr, "rules/header/header-duplicate-key.cpp"},
    {&header_field_type::kRule, nullptr, nullptr, nullptr, "rules/header/header-field-type.cpp"},
    {&header_hash_algorithm_unsupported::kRule, &header_hash_algorithm_unsupported::Check, nullptr, nullptr, "rules/header/header-hash-algorithm-unsupported.cpp"},
    {&header_hash_format::kRule, &header_hash_format::Check, nullptr, nullptr, "rules/header/header-hash-format.cpp"},
    {&header_json_syntax::kRule, nullptr, nullptr, nullptr, "rules/header/header-json-syntax.cpp"},
    {&header_manifest_empty::kRule, &header_manifest_empty::Check, nullptr, nullptr, "rules/header/header-manifest-empty.cpp"},
    {&header_manifest_entry_keys::kRule, nullptr, nullptr, nullptr, "rules/header/header-manifest-entry-keys.cpp"},
    {&header_manifest_order::kRule, &header_manifest_order::Check, nullptr, nullptr, "rules/header/header-manifest-order.cpp"},
    {&header_missing_field::kRule, nullptr, nullptr, nullptr, "rules/header/header-missing-field.cpp"},
    {&header_not_object::kRule, nullptr, nullptr, nullptr, "rules/header/header-not-object.cpp"},
    {&header_not_utf8::kRule, nullptr, nullptr, nullptr, "rules/header/header-not-utf8.cpp"},
    {&header_param_groups_invalid::kRule, &header_param_groups_invalid::Check, nullptr, nullptr, "rules/header/header-param-groups-invalid.cpp"},
    {&header_parent_round_mismatch::kRule, &header_parent_round_mismatch::Check, nullptr, nullptr, "rules/header/header-parent-round-mismatch.cpp"},
    {&header_schema_version_invalid::kRule, nullptr, nullptr, nullptr, "rules/header/header-schema-version-invalid.cpp"},
    {&header_schema_version_missing::kRule, nullptr, nullptr, nullptr, "rules/header/header-schema-version-missing.cpp"},
    {&header_schema_version_too_new::kRule, nullptr, nullptr, nullptr, "rules/header/header-schema-version-too-new.cpp"},
    {&header_tensor_group_prefix::kRule, &header_tensor_group_prefix::Check, nullptr, nullptr, "rules/header/header-tensor-group-prefix.cpp"},
    {&header_tensor_group_undeclared::kRule, &header_tensor_group_undeclared::Check, nullptr, nullptr, "rules/header/header-tensor-group-undeclared.cpp"},
    {&header_tensor_name_invalid::kRule, &header_tensor_name_invalid::Check, nullptr, nullptr, "rules/header/header-tensor-name-invalid.cpp"},
    {&header_tensor_size_overflow::kRule, &header_tensor_size_overflow::Check, nullptr, nullptr, "rules/header/header-tensor-size-overflow.cpp"},
    {&header_too_large::kRule, nullptr, nullptr, nullptr, "rules/header/header-too-large.cpp"},
    {&header_unknown_field::kRule, nullptr, nullptr, nullptr, "rules/header/header-unknown-field.cpp"},
    {&header_weight_files_invalid::kRule, &header_weight_files_invalid::Check, nullptr, nullptr, "rules/header/header-weight-files-invalid.cpp"},
    {&header_wmcp_version_empty::kRule, &header_wmcp_version_empty::Check, nullptr, nullptr, "rules/header/header-wmcp-version-empty.cpp"},
    {&index_duplicate_key::kRule, nullptr, nullptr, nullptr, "rules/index/index-duplicate-key.cpp"},
    {&index_files_mismatch::kRule, &index_files_mismatch::Check, nullptr, nullptr, "rules/index/index-files-mismatch.cpp"},
    {&index_json_invalid::kRule, nullptr, nullptr, nullptr, "rules/index/index-json-invalid.cpp"},
    {&index_structure::kRule, nullptr, nullptr, nullptr, "rules/index/index-structure.cpp"},
    {&index_tensor_unmapped::kRule, &index_tensor_unmapped::Check, nullptr, nullptr, "rules/index/index-tensor-unmapped.cpp"},
    {&index_too_large::kRule, nullptr, nullptr, nullptr, "rules/index/index-too-large.cpp"},
    {&index_total_size::kRule, &index_total_size::Check, nullptr, nullptr, "rules/index/index-total-size.cpp"},
    {&index_wrong_shard::kRule, &index_wrong_shard::Check, nullptr, nullptr, "rules/index/index-wrong-shard.cpp"},
    {&layout_header_missing::kRule, &layout_header_missing::Check, nullptr, nullptr, "rules/layout/layout-header-missing.cpp"},
    {&layout_index_missing::kRule, &layout_index_missing::Check, nullptr, nullptr, "rules/layout/layout-index-missing.cpp"},
    {&layout_mixed::kRule, &layout_mixed::Check, nullptr, nullptr, "rules/layout/layout-mixed.cpp"},
    {&layout_no_weights::kRule, &layout_no_weights::Check, nullptr, nullptr, "rules/layout/layout-no-weights.cpp"},
    {&layout_shard_numbering::kRule, &layout_shard_numbering::Check, nullptr, nullptr, "rules/layout/layout-shard-numbering.cpp"},
    {&layout_stray_entry::kRule, &layout_stray_entry::Check, nullptr, nullptr, "rules/layout/layout-stray-entry.cpp"},
    {&layout_symlink::kRule, &layout_symlink::Check, nullptr, nullptr, "rules/layout/layout-symlink.cpp"},
    {&manifest_dtype_mismatch::kRule, &manifest_dtype_mismatch::Check, nullptr, nullptr, "rules/manifest/manifest-dtype-mismatch.cpp"},
    {&manifest_shape_mismatch::kRule, &manifest_shape_mismatch::Check, nullptr, nullptr, "rules/manifest/manifest-shape-mismatch.cpp"},
    {&manifest_tensor_missing::kRule, &manifest_tensor_missing::Check, nullptr, nullptr, "rules/manifest/manifest-tensor-missing.cpp"},
    {&manifest_tensor_unlisted::kRule, &manifest_tensor_unlisted::Check, nullptr, nullptr, "rules/manifest/manifest-tensor-unlisted.cpp"},
    {&path_escape::kRule, &path_escape::Check, nullptr, nullptr, "rules/path/path-escape.cpp"},
    {&residency_action_head::kRule, &residency_action_head::Check, nullptr, nullptr, "rules/residency/residency-action-head.cpp"},
    {&residency_group_not_shared::kRule, &residency_group_not_shared::Check, nullptr, nullptr, "rules/residency/residency-group-not-shared.cpp"},
    {&residency_policy_widened::kRule, &residency_policy_widened::Check, nullptr, nullptr, "rules/residency/residency-policy-widened.cpp"},
    {&safetensors_buffer_size::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-buffer-size.cpp"},
    {&safetensors_dtype_not_allowed::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-dtype-not-allowed.cpp"},
    {&safetensors_dtype_unknown::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-dtype-unknown.cpp"},
    {&safetensors_duplicate_tensor::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-duplicate-tensor.cpp"},
    {&safetensors_header_json::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-header-json.cpp"},
    {&safetensors_header_not_utf8::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-header-not-utf8.cpp"},
    {&safetensors_header_past_end::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-header-past-end.cpp"},
    {&safetensors_header_too_large::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-header-too-large.cpp"},
    {&safetensors_header_too_small::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-header-too-small.cpp"},
    {&safetensors_metadata_duplicate_key::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-metadata-duplicate-key.cpp"},
    {&safetensors_metadata_invalid::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-metadata-invalid.cpp"},
    {&safetensors_noncanonical_whitespace::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-noncanonical-whitespace.cpp"},
    {&safetensors_offsets_not_contiguous::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-offsets-not-contiguous.cpp"},
    {&safetensors_size_misaligned::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-size-misaligned.cpp"},
    {&safetensors_size_mismatch::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-size-mismatch.cpp"},
    {&safetensors_size_overflow::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-size-overflow.cpp"},
    {&safetensors_tensor_entry_invalid::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-tensor-entry-invalid.cpp"},
    {&safetensors_tensor_name_invalid::kRule, nullptr, nullptr, nullptr, "rules/safetensors/safetensors-tensor-name-invalid.cpp"},
    {&weights_file_empty::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-file-empty.cpp"},
    {&weights_files_mismatch::kRule, &weights_files_mismatch::Check, nullptr, nullptr, "rules/weights/weights-files-mismatch.cpp"},
    {&weights_format_gguf::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-gguf.cpp"},
    {&weights_format_git_lfs_pointer::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-git-lfs-pointer.cpp"},
    {&weights_format_html::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-html.cpp"},
    {&weights_format_numpy::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-numpy.cpp"},
    {&weights_format_pickle::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-pickle.cpp"},
    {&weights_format_zip::kRule, nullptr, nullptr, nullptr, "rules/weights/weights-format-zip.cpp"},
    {&weights_metadata_content_hash::kRule, &weights_metadata_content_hash::Check, nullptr, nullptr, "rules/weights/weights-metadata-content-hash.cpp"},
    {&weights_metadata_schema_version::kRule, &weights_metadata_schema_version::Check, nullptr, nullptr, "rules/weights/weights-metadata-schema-version.cpp"},
    {&weights_tensor_in_two_files::kRule, &weights_tensor_in_two_files::Check, nullptr, nullptr, "rules/weights/weights-tensor-in-two-files.cpp"},
};

}  // namespace

std::span<const RuleEntry> AllRules() { return kRules; }

const RuleInfo* FindRule(std::string_view id) {
  auto it = std::lower_bound(std::begin(kRules), std::end(kRules), id,
                             [](const RuleEntry& e, std::string_view key) { return e.info->id < key; });
  return (it != std::end(kRules) && it->info->id == id) ? it->info : nullptr;
}

}  // namespace ckpt::rules
