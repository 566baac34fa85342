// torchscript-export: a torch.export program archive (.pt2), not a weights file.
// Detected while reading: lib/formats/torchscript reports Diag::kTorchscriptExport.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::torchscript_export {

const RuleInfo kRule{
    .id = "torchscript-export",
    .name = "TorchscriptExport",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A torch.export program archive: running it runs its graph",
    .explanation =
        "torch.export.load rebuilds the exported program (its serialized graph, constants and, for "
        "AOTInductor packages, compiled shared objects) and running it runs that graph. It is a program, "
        "not a weights file: the gate never passes one, with or without native code.",
    .remediation = "Ship the state dict as safetensors and export the program where it is built.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::torchscript_export
