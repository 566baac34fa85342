// torchscript-native-code: a member of a torch.export archive is an ELF, PE or Mach-O file.
// Detected while reading: lib/formats/torchscript reports Diag::kTorchscriptNativeCode.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::torchscript_native_code {

const RuleInfo kRule{
    .id = "torchscript-native-code",
    .name = "TorchscriptNativeCode",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A torch.export archive carries native code",
    .explanation =
        "AOTInductor packages put compiled shared objects (data/aotinductor/...so) in the archive; "
        "loading the package dlopens them, which runs their constructors before any check of the model. "
        "The member is named by its first bytes (ELF, PE or Mach-O), whatever its name says.",
    .remediation = "Never load a compiled package from an untrusted source; ship weights as safetensors.",
    .security = true,
};

}  // namespace ckpt::rules::torchscript_native_code
