// zip-member-unexpected: Zip member that torch.save does not write.
// Detected while reading, by lib/formats/zip_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::zip_member_unexpected {

const RuleInfo kRule{
    .id = "zip-member-unexpected",
    .name = "ZipMemberUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Zip member that torch.save does not write",
    .explanation =
        "torch.save writes data.pkl, data/<key>, version, byteorder and a few records, all under "
        "one top folder. Any other member, or a data record no tensor references, is a place to "
        "hide a payload; it is still analysed.",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::zip_member_unexpected
