// torchscript-code: a TorchScript archive (torch.jit.save), whose loading runs its code.
// Detected while reading: lib/formats/torchscript reports Diag::kTorchscriptCode.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::torchscript_code {

const RuleInfo kRule{
    .id = "torchscript-code",
    .name = "TorchscriptCode",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A TorchScript archive: loading it runs its code",
    .explanation =
        "torch.jit.load compiles the Python-syntax TorchScript in the archive's code/ members and runs "
        "it (forward, __setstate__ and every method the archive defines), with what the program may do "
        "(file and process access through torch.ops). A weights gate cannot pass a program, whatever "
        "its tensors are; none are listed.",
    .remediation = "Ship torch.save(model.state_dict()) or safetensors, and rebuild the model from its source code.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::torchscript_code
