// The one list of rules. Everything else about the catalog comes from it: the
// declarations (rules/catalog.h) and the sorted registry with each rule's source path
// (rules/registry.cpp). One line a rule, sorted by id; scripts/new-rule adds lines.
//   X(family, symbol, "id", Kind)
//   family: the folder rules/<family>/ holding <id>.cpp; symbol: the rule's namespace,
//   the id with '-' as '_'; Kind: Read (detected while reading: a reader diagnostic maps to
//   it, rules/reader_rules.cpp), Checked (Check() on the artifact model), Chain
//   (CheckChain() on a history), Diff (CheckDiff() on two rounds).
#pragma once

// clang-format off
#define CKPT_RULES(X) \
  X(chain, chain_cycle, "chain-cycle", Chain) \
  X(chain, chain_duplicate_artifact, "chain-duplicate-artifact", Chain) \
  X(chain, chain_fork, "chain-fork", Chain) \
  X(chain, chain_gap, "chain-gap", Chain) \
  X(chain, chain_genesis_mismatch, "chain-genesis-mismatch", Chain) \
  X(chain, chain_genesis_missing, "chain-genesis-missing", Chain) \
  X(chain, chain_genesis_multiple, "chain-genesis-multiple", Chain) \
  X(chain, chain_head_missing, "chain-head-missing", Chain) \
  X(chain, chain_links_unverified, "chain-links-unverified", Chain) \
  X(chain, chain_parent_untrusted, "chain-parent-untrusted", Chain) \
  X(chain, chain_round_not_consecutive, "chain-round-not-consecutive", Chain) \
  X(chain, chain_wmcp_changed, "chain-wmcp-changed", Chain) \
  X(diff, diff_change_not_allowed, "diff-change-not-allowed", Diff) \
  X(diff, diff_not_child, "diff-not-child", Diff) \
  X(diff, diff_rel_l2_exceeded, "diff-rel-l2-exceeded", Diff) \
  X(hash, hash_mismatch, "hash-mismatch", Checked) \
  X(hash, hash_not_verified, "hash-not-verified", Checked) \
  X(hash, hash_unexpected, "hash-unexpected", Checked) \
  X(header, header_created_at_invalid, "header-created-at-invalid", Checked) \
  X(header, header_dtype_invalid, "header-dtype-invalid", Checked) \
  X(header, header_duplicate_key, "header-duplicate-key", Read) \
  X(header, header_field_type, "header-field-type", Read) \
  X(header, header_hash_algorithm_unsupported, "header-hash-algorithm-unsupported", Checked) \
  X(header, header_hash_format, "header-hash-format", Checked) \
  X(header, header_json_syntax, "header-json-syntax", Read) \
  X(header, header_json_too_deep, "header-json-too-deep", Read) \
  X(header, header_manifest_empty, "header-manifest-empty", Checked) \
  X(header, header_manifest_entry_keys, "header-manifest-entry-keys", Checked) \
  X(header, header_manifest_order, "header-manifest-order", Checked) \
  X(header, header_missing_field, "header-missing-field", Checked) \
  X(header, header_not_object, "header-not-object", Read) \
  X(header, header_not_utf8, "header-not-utf8", Read) \
  X(header, header_param_groups_invalid, "header-param-groups-invalid", Checked) \
  X(header, header_parent_round_mismatch, "header-parent-round-mismatch", Checked) \
  X(header, header_schema_version_invalid, "header-schema-version-invalid", Read) \
  X(header, header_schema_version_missing, "header-schema-version-missing", Read) \
  X(header, header_schema_version_too_new, "header-schema-version-too-new", Read) \
  X(header, header_tensor_group_prefix, "header-tensor-group-prefix", Checked) \
  X(header, header_tensor_group_undeclared, "header-tensor-group-undeclared", Checked) \
  X(header, header_tensor_name_invalid, "header-tensor-name-invalid", Checked) \
  X(header, header_tensor_size_overflow, "header-tensor-size-overflow", Checked) \
  X(header, header_too_large, "header-too-large", Read) \
  X(header, header_unknown_field, "header-unknown-field", Checked) \
  X(header, header_weight_files_invalid, "header-weight-files-invalid", Checked) \
  X(header, header_wmcp_version_empty, "header-wmcp-version-empty", Checked) \
  X(index, index_duplicate_key, "index-duplicate-key", Read) \
  X(index, index_files_mismatch, "index-files-mismatch", Checked) \
  X(index, index_json_invalid, "index-json-invalid", Read) \
  X(index, index_json_too_deep, "index-json-too-deep", Read) \
  X(index, index_structure, "index-structure", Read) \
  X(index, index_tensor_unmapped, "index-tensor-unmapped", Checked) \
  X(index, index_too_large, "index-too-large", Read) \
  X(index, index_total_size, "index-total-size", Checked) \
  X(index, index_wrong_shard, "index-wrong-shard", Checked) \
  X(input, input_compressed, "input-compressed", Read) \
  X(input, input_unrecognised, "input-unrecognised", Read) \
  X(layout, layout_file_changed, "layout-file-changed", Checked) \
  X(layout, layout_header_missing, "layout-header-missing", Checked) \
  X(layout, layout_index_missing, "layout-index-missing", Checked) \
  X(layout, layout_mixed, "layout-mixed", Checked) \
  X(layout, layout_no_weights, "layout-no-weights", Checked) \
  X(layout, layout_shard_numbering, "layout-shard-numbering", Checked) \
  X(layout, layout_stray_entry, "layout-stray-entry", Checked) \
  X(layout, layout_symlink, "layout-symlink", Checked) \
  X(manifest, manifest_dtype_mismatch, "manifest-dtype-mismatch", Checked) \
  X(manifest, manifest_shape_mismatch, "manifest-shape-mismatch", Checked) \
  X(manifest, manifest_tensor_missing, "manifest-tensor-missing", Checked) \
  X(manifest, manifest_tensor_unlisted, "manifest-tensor-unlisted", Checked) \
  X(path, path_escape, "path-escape", Checked) \
  X(residency, residency_action_head, "residency-action-head", Checked) \
  X(residency, residency_group_not_shared, "residency-group-not-shared", Checked) \
  X(residency, residency_policy_widened, "residency-policy-widened", Checked) \
  X(safetensors, safetensors_buffer_size, "safetensors-buffer-size", Read) \
  X(safetensors, safetensors_dtype_not_allowed, "safetensors-dtype-not-allowed", Checked) \
  X(safetensors, safetensors_dtype_unknown, "safetensors-dtype-unknown", Read) \
  X(safetensors, safetensors_duplicate_tensor, "safetensors-duplicate-tensor", Read) \
  X(safetensors, safetensors_header_json, "safetensors-header-json", Read) \
  X(safetensors, safetensors_header_not_utf8, "safetensors-header-not-utf8", Read) \
  X(safetensors, safetensors_header_past_end, "safetensors-header-past-end", Read) \
  X(safetensors, safetensors_header_too_deep, "safetensors-header-too-deep", Read) \
  X(safetensors, safetensors_header_too_large, "safetensors-header-too-large", Read) \
  X(safetensors, safetensors_header_too_small, "safetensors-header-too-small", Read) \
  X(safetensors, safetensors_metadata_duplicate_key, "safetensors-metadata-duplicate-key", Read) \
  X(safetensors, safetensors_metadata_invalid, "safetensors-metadata-invalid", Read) \
  X(safetensors, safetensors_noncanonical_whitespace, "safetensors-noncanonical-whitespace", Checked) \
  X(safetensors, safetensors_offsets_not_contiguous, "safetensors-offsets-not-contiguous", Read) \
  X(safetensors, safetensors_size_misaligned, "safetensors-size-misaligned", Read) \
  X(safetensors, safetensors_size_mismatch, "safetensors-size-mismatch", Read) \
  X(safetensors, safetensors_size_overflow, "safetensors-size-overflow", Read) \
  X(safetensors, safetensors_tensor_entry_invalid, "safetensors-tensor-entry-invalid", Read) \
  X(safetensors, safetensors_tensor_name_invalid, "safetensors-tensor-name-invalid", Checked) \
  X(tar, tar_checksum_invalid, "tar-checksum-invalid", Read) \
  X(tar, tar_data_after_end, "tar-data-after-end", Read) \
  X(tar, tar_device_member, "tar-device-member", Read) \
  X(tar, tar_duplicate_member, "tar-duplicate-member", Read) \
  X(tar, tar_end_marker_missing, "tar-end-marker-missing", Read) \
  X(tar, tar_extension_repeated, "tar-extension-repeated", Read) \
  X(tar, tar_fifo_member, "tar-fifo-member", Read) \
  X(tar, tar_global_header, "tar-global-header", Read) \
  X(tar, tar_hardlink_member, "tar-hardlink-member", Read) \
  X(tar, tar_header_invalid, "tar-header-invalid", Read) \
  X(tar, tar_member_layout, "tar-member-layout", Read) \
  X(tar, tar_member_past_end, "tar-member-past-end", Read) \
  X(tar, tar_member_type_unsupported, "tar-member-type-unsupported", Read) \
  X(tar, tar_name_conflict, "tar-name-conflict", Read) \
  X(tar, tar_path_escape, "tar-path-escape", Read) \
  X(tar, tar_size_conflict, "tar-size-conflict", Read) \
  X(tar, tar_sparse_member, "tar-sparse-member", Read) \
  X(tar, tar_symlink_member, "tar-symlink-member", Read) \
  X(weights, weights_file_empty, "weights-file-empty", Read) \
  X(weights, weights_files_mismatch, "weights-files-mismatch", Checked) \
  X(weights, weights_format_gguf, "weights-format-gguf", Read) \
  X(weights, weights_format_git_lfs_pointer, "weights-format-git-lfs-pointer", Read) \
  X(weights, weights_format_html, "weights-format-html", Read) \
  X(weights, weights_format_numpy, "weights-format-numpy", Read) \
  X(weights, weights_format_pickle, "weights-format-pickle", Read) \
  X(weights, weights_format_zip, "weights-format-zip", Read) \
  X(weights, weights_metadata_content_hash, "weights-metadata-content-hash", Checked) \
  X(weights, weights_metadata_schema_version, "weights-metadata-schema-version", Checked) \
  X(weights, weights_tensor_in_two_files, "weights-tensor-in-two-files", Checked) \
  /* end of the list: every X line ends with a backslash */
// clang-format on
