// The one table from reader diagnostics (lib/findings/diagnostic.h) to catalog rules,
// in the order of CKPT_READER_DIAGNOSTICS; the static_assert keeps it complete.
#include "rules/reader_rules.h"

#include <array>

#include "rules/catalog.h"

namespace ckpt::rules {
namespace {

constexpr std::array<const RuleInfo*, static_cast<std::size_t>(Diag::kCount)> kReaderRules = {
    &header_duplicate_key::kRule,
    &header_field_type::kRule,
    &header_json_syntax::kRule,
    &header_json_too_deep::kRule,
    &header_not_object::kRule,
    &header_not_utf8::kRule,
    &header_schema_version_invalid::kRule,
    &header_schema_version_missing::kRule,
    &header_schema_version_too_new::kRule,
    &header_too_large::kRule,
    &index_duplicate_key::kRule,
    &index_json_invalid::kRule,
    &index_json_too_deep::kRule,
    &index_structure::kRule,
    &index_too_large::kRule,
    &input_compressed::kRule,
    &input_unrecognised::kRule,
    &model_index_invalid::kRule,
    &safetensors_buffer_size::kRule,
    &safetensors_dtype_unknown::kRule,
    &safetensors_duplicate_tensor::kRule,
    &safetensors_header_json::kRule,
    &safetensors_header_not_utf8::kRule,
    &safetensors_header_past_end::kRule,
    &safetensors_header_too_deep::kRule,
    &safetensors_header_too_large::kRule,
    &safetensors_header_too_small::kRule,
    &safetensors_metadata_duplicate_key::kRule,
    &safetensors_metadata_invalid::kRule,
    &safetensors_offsets_not_contiguous::kRule,
    &safetensors_size_misaligned::kRule,
    &safetensors_size_mismatch::kRule,
    &safetensors_size_overflow::kRule,
    &safetensors_tensor_entry_invalid::kRule,
    &safetensors_tensor_name_invalid::kRule,
    &tar_checksum_invalid::kRule,
    &tar_data_after_end::kRule,
    &tar_device_member::kRule,
    &tar_duplicate_member::kRule,
    &tar_end_marker_missing::kRule,
    &tar_extension_repeated::kRule,
    &tar_fifo_member::kRule,
    &tar_global_header::kRule,
    &tar_hardlink_member::kRule,
    &tar_header_invalid::kRule,
    &tar_member_layout::kRule,
    &tar_member_past_end::kRule,
    &tar_member_type_unsupported::kRule,
    &tar_name_conflict::kRule,
    &tar_path_escape::kRule,
    &tar_size_conflict::kRule,
    &tar_sparse_member::kRule,
    &tar_symlink_member::kRule,
    &weights_file_empty::kRule,
    &weights_format_gguf::kRule,
    &weights_format_git_lfs_pointer::kRule,
    &weights_format_html::kRule,
    &weights_format_numpy::kRule,
    &weights_format_pickle::kRule,
    &weights_format_zip::kRule,
};
static_assert(kReaderRules.size() == static_cast<std::size_t>(Diag::kCount),
              "every reader diagnostic maps to exactly one rule");

}  // namespace

const RuleInfo& RuleForDiagnostic(Diag kind) { return *kReaderRules.at(static_cast<std::size_t>(kind)); }

}  // namespace ckpt::rules
