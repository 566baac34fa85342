// model-executable: Executable in a model folder.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_executable {

const RuleInfo kRule{
    .id = "model-executable",
    .name = "ModelExecutable",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Executable in a model folder",
    .explanation =
        "A model has no reason to ship machine code: an ELF, PE or Mach-O file beside the weights "
        "is a binary that something is meant to run.",
    .remediation = "Remove the executable from the model; ship tools separately, from a trusted source.",
    .security = true,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const InventoryItem& item : artifact.model->inventory) {
    if (item.kind != InventoryClass::kExecutable) continue;
    sink.Report(
        kRule, FileLocation(item.name),
        QuoteForMessage(item.name) + " is " + item.description + "; a model has no reason to ship machine code.");
  }
}

}  // namespace ckpt::rules::model_executable
