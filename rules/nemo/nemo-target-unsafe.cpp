// nemo-target-unsafe: a NeMo config instantiates a target outside the allowlist.
// Detected while reading: lib/formats/nemo reports Diag::kNemoTargetUnsafe.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::nemo_target_unsafe {

const RuleInfo kRule{
    .id = "nemo-target-unsafe",
    .name = "NemoTargetUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A NeMo config instantiates a target outside the allowlist",
    .explanation =
        "Restoring a .nemo archive instantiates every _target_ (and target) of model_config.yaml through Hydra: a "
        "target names any importable callable, so os.system, subprocess.Popen, builtins.eval or a helper function run "
        "on load. Only classes under nemo.collections and nemo.core, and classes of torch.nn, torch.optim, "
        "torch.optim.lr_scheduler and torch.utils.data are allowed.",
    .remediation = "Remove the target, or replace it with the NeMo or torch class it stands for.",
    .security = true,
};

}  // namespace ckpt::rules::nemo_target_unsafe
