// tar-member-type-unsupported: Tar member of a type an artifact cannot hold.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_member_type_unsupported {

const RuleInfo kRule{
    .id = "tar-member-type-unsupported",
    .name = "TarMemberTypeUnsupported",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member of a type an artifact cannot hold",
    .explanation =
        "Only regular files, the top folder's directory entry and pax/GNU long-name records are "
        "accepted. Volume labels, multi-volume continuations, dump directories, contiguous files, "
        "vendor types and unknown types are refused.",
    .remediation = "Re-create the tar from the artifact directory with a standard tar writer.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_member_type_unsupported
