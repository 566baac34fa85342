// The explicit, sorted rule table (no static self-registration: the order and the
// complete list are visible here, and tests/rule_catalog_test.cpp checks both).
#include <algorithm>
#include <array>

#include "rules/catalog.h"

namespace ckpt::rules {
namespace {

const RuleEntry kRules[] = {
    {&hash_mismatch::kRule, &hash_mismatch::Check, "rules/hash/hash-mismatch.cpp"},
    {&hash_unexpected::kRule, &hash_unexpected::Check, "rules/hash/hash-unexpected.cpp"},
    {&header_created_at_invalid::kRule, &header_created_at_invalid::Check, "rules/header/header-created-at-invalid.cpp"},
    {&header_dtype_invalid::kRule, &header_dtype_invalid::Check, "rules/header/header-dtype-invalid.cpp"},
    {&header_duplicate_key::kRule, nullptr, "rules/header/header-duplicate-key.cpp"},
    {&header_field_type::kRule, nullptr, "rules/header/header-field-type.cpp"},
    {&header_hash_algorithm_unsupported::kRule, &header_hash_algorithm_unsupported::Check, "rules/header/header-hash-algorithm-unsupported.cpp"},
    {&header_hash_format::kRule, &header_hash_format::Check, "rules/header/header-hash-format.cpp"},
    {&header_json_syntax::kRule, nullptr, "rules/header/header-json-syntax.cpp"},
    {&header_manifest_empty::kRule, &header_manifest_empty::Check, "rules/header/header-manifest-empty.cpp"},
    {&header_manifest_entry_keys::kRule, nullptr, "rules/header/header-manifest-entry-keys.cpp"},
    {&header_manifest_order::kRule, &header_manifest_order::Check, "rules/header/header-manifest-order.cpp"},
    {&header_missing_field::kRule, nullptr, "rules/header/header-missing-field.cpp"},
    {&header_not_object::kRule, nullptr, "rules/header/header-not-object.cpp"},
    {&header_not_utf8::kRule, nullptr, "rules/header/header-not-utf8.cpp"},
    {&header_param_groups_invalid::kRule, &header_param_groups_invalid::Check, "rules/header/header-param-groups-invalid.cpp"},
    {&header_parent_round_mismatch::kRule, &header_parent_round_mismatch::Check, "rules/header/header-parent-round-mismatch.cpp"},
    {&header_schema_version_invalid::kRule, nullptr, "rules/header/header-schema-version-invalid.cpp"},
    {&header_schema_version_missing::kRule, nullptr, "rules/header/header-schema-version-missing.cpp"},
    {&header_schema_version_too_new::kRule, nullptr, "rules/header/header-schema-version-too-new.cpp"},
    {&header_tensor_group_prefix::kRule, &header_tensor_group_prefix::Check, "rules/header/header-tensor-group-prefix.cpp"},
    {&header_tensor_group_undeclared::kRule, &header_tensor_group_undeclared::Check, "rules/header/header-tensor-group-undeclared.cpp"},
    {&header_tensor_name_invalid::kRule, &header_tensor_name_invalid::Check, "rules/header/header-tensor-name-invalid.cpp"},
    {&header_tensor_size_overflow::kRule, &header_tensor_size_overflow::Check, "rules/header/header-tensor-size-overflow.cpp"},
    {&header_too_large::kRule, nullptr, "rules/header/header-too-large.cpp"},
    {&header_unknown_field::kRule, nullptr, "rules/header/header-unknown-field.cpp"},
    {&header_weight_files_invalid::kRule, &header_weight_files_invalid::Check, "rules/header/header-weight-files-invalid.cpp"},
    {&header_wmcp_version_empty::kRule, &header_wmcp_version_empty::Check, "rules/header/header-wmcp-version-empty.cpp"},
    {&index_duplicate_key::kRule, nullptr, "rules/index/index-duplicate-key.cpp"},
    {&index_files_mismatch::kRule, &index_files_mismatch::Check, "rules/index/index-files-mismatch.cpp"},
    {&index_json_invalid::kRule, nullptr, "rules/index/index-json-invalid.cpp"},
    {&index_structure::kRule, nullptr, "rules/index/index-structure.cpp"},
    {&index_tensor_unmapped::kRule, &index_tensor_unmapped::Check, "rules/index/index-tensor-unmapped.cpp"},
    {&index_too_large::kRule, nullptr, "rules/index/index-too-large.cpp"},
    {&index_total_size::kRule, &index_total_size::Check, "rules/index/index-total-size.cpp"},
    {&index_wrong_shard::kRule, &index_wrong_shard::Check, "rules/index/index-wrong-shard.cpp"},
    {&layout_header_missing::kRule, &layout_header_missing::Check, "rules/layout/layout-header-missing.cpp"},
    {&layout_index_missing::kRule, &layout_index_missing::Check, "rules/layout/layout-index-missing.cpp"},
    {&layout_mixed::kRule, &layout_mixed::Check, "rules/layout/layout-mixed.cpp"},
    {&layout_no_weights::kRule, &layout_no_weights::Check, "rules/layout/layout-no-weights.cpp"},
    {&layout_shard_numbering::kRule, &layout_shard_numbering::Check, "rules/layout/layout-shard-numbering.cpp"},
    {&layout_stray_entry::kRule, &layout_stray_entry::Check, "rules/layout/layout-stray-entry.cpp"},
    {&layout_symlink::kRule, &layout_symlink::Check, "rules/layout/layout-symlink.cpp"},
    {&manifest_dtype_mismatch::kRule, &manifest_dtype_mismatch::Check, "rules/manifest/manifest-dtype-mismatch.cpp"},
    {&manifest_shape_mismatch::kRule, &manifest_shape_mismatch::Check, "rules/manifest/manifest-shape-mismatch.cpp"},
    {&manifest_tensor_missing::kRule, &manifest_tensor_missing::Check, "rules/manifest/manifest-tensor-missing.cpp"},
    {&manifest_tensor_unlisted::kRule, &manifest_tensor_unlisted::Check, "rules/manifest/manifest-tensor-unlisted.cpp"},
    {&path_escape::kRule, &path_escape::Check, "rules/path/path-escape.cpp"},
    {&residency_action_head::kRule, &residency_action_head::Check, "rules/residency/residency-action-head.cpp"},
    {&residency_group_not_shared::kRule, &residency_group_not_shared::Check, "rules/residency/residency-group-not-shared.cpp"},
    {&residency_policy_widened::kRule, &residency_policy_widened::Check, "rules/residency/residency-policy-widened.cpp"},
    {&safetensors_buffer_size::kRule, nullptr, "rules/safetensors/safetensors-buffer-size.cpp"},
    {&safetensors_dtype_not_allowed::kRule, nullptr, "rules/safetensors/safetensors-dtype-not-allowed.cpp"},
    {&safetensors_dtype_unknown::kRule, nullptr, "rules/safetensors/safetensors-dtype-unknown.cpp"},
    {&safetensors_duplicate_tensor::kRule, nullptr, "rules/safetensors/safetensors-duplicate-tensor.cpp"},
    {&safetensors_header_json::kRule, nullptr, "rules/safetensors/safetensors-header-json.cpp"},
    {&safetensors_header_not_utf8::kRule, nullptr, "rules/safetensors/safetensors-header-not-utf8.cpp"},
    {&safetensors_header_past_end::kRule, nullptr, "rules/safetensors/safetensors-header-past-end.cpp"},
    {&safetensors_header_too_large::kRule, nullptr, "rules/safetensors/safetensors-header-too-large.cpp"},
    {&safetensors_header_too_small::kRule, nullptr, "rules/safetensors/safetensors-header-too-small.cpp"},
    {&safetensors_metadata_duplicate_key::kRule, nullptr, "rules/safetensors/safetensors-metadata-duplicate-key.cpp"},
    {&safetensors_metadata_invalid::kRule, nullptr, "rules/safetensors/safetensors-metadata-invalid.cpp"},
    {&safetensors_noncanonical_whitespace::kRule, nullptr, "rules/safetensors/safetensors-noncanonical-whitespace.cpp"},
    {&safetensors_offsets_not_contiguous::kRule, nullptr, "rules/safetensors/safetensors-offsets-not-contiguous.cpp"},
    {&safetensors_size_misaligned::kRule, nullptr, "rules/safetensors/safetensors-size-misaligned.cpp"},
    {&safetensors_size_mismatch::kRule, nullptr, "rules/safetensors/safetensors-size-mismatch.cpp"},
    {&safetensors_size_overflow::kRule, nullptr, "rules/safetensors/safetensors-size-overflow.cpp"},
    {&safetensors_tensor_entry_invalid::kRule, nullptr, "rules/safetensors/safetensors-tensor-entry-invalid.cpp"},
    {&safetensors_tensor_name_invalid::kRule, nullptr, "rules/safetensors/safetensors-tensor-name-invalid.cpp"},
    {&weights_file_empty::kRule, nullptr, "rules/weights/weights-file-empty.cpp"},
    {&weights_files_mismatch::kRule, &weights_files_mismatch::Check, "rules/weights/weights-files-mismatch.cpp"},
    {&weights_format_gguf::kRule, nullptr, "rules/weights/weights-format-gguf.cpp"},
    {&weights_format_git_lfs_pointer::kRule, nullptr, "rules/weights/weights-format-git-lfs-pointer.cpp"},
    {&weights_format_html::kRule, nullptr, "rules/weights/weights-format-html.cpp"},
    {&weights_format_numpy::kRule, nullptr, "rules/weights/weights-format-numpy.cpp"},
    {&weights_format_pickle::kRule, nullptr, "rules/weights/weights-format-pickle.cpp"},
    {&weights_format_zip::kRule, nullptr, "rules/weights/weights-format-zip.cpp"},
    {&weights_metadata_content_hash::kRule, &weights_metadata_content_hash::Check, "rules/weights/weights-metadata-content-hash.cpp"},
    {&weights_metadata_schema_version::kRule, &weights_metadata_schema_version::Check, "rules/weights/weights-metadata-schema-version.cpp"},
    {&weights_tensor_in_two_files::kRule, &weights_tensor_in_two_files::Check, "rules/weights/weights-tensor-in-two-files.cpp"},
};

}  // namespace

std::span<const RuleEntry> AllRules() { return kRules; }

const RuleInfo* FindRule(std::string_view id) {
  auto it = std::lower_bound(std::begin(kRules), std::end(kRules), id,
                             [](const RuleEntry& e, std::string_view key) { return e.info->id < key; });
  return (it != std::end(kRules) && it->info->id == id) ? it->info : nullptr;
}

}  // namespace ckpt::rules
