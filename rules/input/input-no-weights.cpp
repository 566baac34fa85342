// input-no-weights: A model folder with nothing to audit.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::input_no_weights {

const RuleInfo kRule{
    .id = "input-no-weights",
    .name = "InputNoWeights",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Nothing to audit: the folder holds no weight file",
    .explanation =
        "The folder holds no weight file of any kind (safetensors, a pickle-based checkpoint, "
        "GGUF) and no artifact: only configuration, text or images, or nothing at all. A gate "
        "that passes it has checked nothing, and a wrong path, an unfinished upload or a "
        "deleted checkpoint would go through unnoticed.",
    .remediation = "Point the audit at the folder that holds the model's weights, or publish them.",
    .security = false,
    .tier = Tier::kRootCause,
    .inputs = InputKinds{InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model || !artifact.weights.empty() || !artifact.model->artifacts.empty()) return;
  for (const InventoryItem& item : artifact.model->inventory) {
    if (item.kind == InventoryClass::kWeights || item.kind == InventoryClass::kPickleFamily ||
        item.kind == InventoryClass::kGguf || item.kind == InventoryClass::kAnalysedWeights) {
      return;
    }
  }
  const std::size_t files = artifact.model->inventory.size();
  // Located at the first file there is instead of weights (the folder itself when empty).
  sink.Report(kRule, FileLocation(files == 0 ? std::string() : artifact.model->inventory.front().name),
              "The folder holds no weight file (safetensors, pickle-based or GGUF) and no artifact" +
                  (files == 0 ? std::string(": it is empty.")
                              : ", only " + std::to_string(files) + (files == 1 ? " other file." : " other files.")) +
                  " Nothing was audited.");
}

}  // namespace ckpt::rules::input_no_weights
