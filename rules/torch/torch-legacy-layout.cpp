// torch-legacy-layout: Legacy torch.save layout broken.
// Detected while reading, by lib/formats/torch_checkpoint.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::torch_legacy_layout {

const RuleInfo kRule{
    .id = "torch-legacy-layout",
    .name = "TorchLegacyLayout",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Legacy torch.save layout broken",
    .explanation =
        "The legacy format is a magic number, protocol 1001, a sys_info dict, the object pickle, "
        "a list of storage keys and then each storage as a little-endian count and its bytes. A "
        "layout that deviates (a magic produced by a call, a missing or extra storage, bytes "
        "after the last) is not what torch writes.",
    .remediation = "Regenerate the checkpoint with torch.save, or better, with safetensors.",
    .security = true,
    .tier = Tier::kPrimary,
};

}  // namespace ckpt::rules::torch_legacy_layout
