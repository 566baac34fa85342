// nemo-weights-missing: a NeMo archive holds no torch checkpoint to audit.
// Detected while reading: lib/formats/nemo reports Diag::kNemoWeightsMissing.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::nemo_weights_missing {

const RuleInfo kRule{
    .id = "nemo-weights-missing",
    .name = "NemoWeightsMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A NeMo archive holds no torch checkpoint to audit",
    .explanation =
        "NeMo restores the weights from model_weights.ckpt at the archive's root, a torch.save state dict. Without it "
        "(or when it is another format) there are no weights to audit, and whatever the loader finds instead was not "
        "checked.",
    .remediation = "Save the model again with NeMo's save_to.",
    .security = true,
};

}  // namespace ckpt::rules::nemo_weights_missing
