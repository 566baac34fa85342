// tar-sparse-member: Sparse file in a tar artifact.
// Detected while reading, by lib/formats/tar_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::tar_sparse_member {

const RuleInfo kRule{
    .id = "tar-sparse-member",
    .name = "TarSparseMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Sparse file in a tar artifact",
    .explanation =
        "A sparse member (GNU type 'S' or GNU.sparse pax records) stores its data with holes "
        "described by a map that readers interpret differently; the bytes in the archive are not "
        "the file's bytes.",
    .remediation = "Create the tar without --sparse.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::tar_sparse_member
