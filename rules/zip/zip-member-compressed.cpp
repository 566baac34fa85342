// zip-member-compressed: Compressed member in a torch zip.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_member_compressed {

const RuleInfo kRule{
    .id = "zip-member-compressed",
    .name = "ZipMemberCompressed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Compressed member in a torch zip",
    .explanation =
        "torch.save stores members uncompressed so tensors can be mapped in place; a compressed "
        "member is another writer's doing, and its bytes are not what the directory says is "
        "stored.",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = false,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::zip_member_compressed
