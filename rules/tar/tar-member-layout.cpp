// tar-member-layout: Tar member names do not follow one artifact layout.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_member_layout {

const RuleInfo kRule{
    .id = "tar-member-layout",
    .name = "TarMemberLayout",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Tar member names do not follow one artifact layout",
    .explanation =
        "Member names must all be bare, all './'-prefixed, or all under one common top folder, "
        "with only that folder's directory entry beside the files. Sub-folders, a second top "
        "folder or a mix of forms are refused.",
    .remediation =
        "Tar the artifact directory itself (tar -cf round.tar -C round .) or its parent folder "
        "entry (tar -cf round.tar round).",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_member_layout
