// config-target-unsafe: a configuration names an import target outside the allowlist.
// Detected while reading: lib/metadata/import_targets.cpp finds the targets; the readers of
// model folders, safetensors metadata and GGUF metadata report Diag::kConfigTargetUnsafe.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::config_target_unsafe {

const RuleInfo kRule{
    .id = "config-target-unsafe",
    .name = "ConfigTargetUnsafe",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A configuration names an import target outside the allowlist",
    .explanation =
        "Hydra, OmegaConf and NeMo import and call the value of every _target_ (and target, and Hydra 0.x's cls or "
        "class) when a configuration is instantiated: a YAML or JSON file beside the weights, or a configuration kept "
        "in the weights' own metadata (safetensors __metadata__, GGUF), runs os.system, subprocess.Popen or any "
        "importable callable that way (CVE-2025-23304; Unit 42, January 2026). Only classes under nemo.collections "
        "and nemo.core, and classes of torch.nn, torch.optim, torch.optim.lr_scheduler and torch.utils.data are "
        "allowed.",
    .remediation = "Remove the target, or replace it with the NeMo or torch class it stands for.",
    .security = true,
};

}  // namespace ckpt::rules::config_target_unsafe
