// weights-format-git-lfs-pointer: Weight file is a Git LFS pointer.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_git_lfs_pointer {

const RuleInfo kRule{
    .id = "weights-format-git-lfs-pointer",
    .name = "WeightsFormatGitLfsPointer",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is a Git LFS pointer",
    .explanation =
        "The file is a Git LFS pointer: the weights were never downloaded (git lfs pull "
        "was not run).",
    .remediation =
        "Fetch the real file (git lfs pull; in GitHub Actions, actions/checkout with lfs: true), then audit again.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_git_lfs_pointer
