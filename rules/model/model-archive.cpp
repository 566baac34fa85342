// model-archive: Archive in a model folder (members not inspected).
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_archive {

const RuleInfo kRule{
    .id = "model-archive",
    .name = "ModelArchive",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Archive in a model folder (members not inspected)",
    .explanation =
        "A zip that is not a torch checkpoint, a tar or a 7z archive in a model folder holds "
        "files the audit did not inspect.",
    .remediation = "Unpack it and audit its content, or remove it.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const InventoryItem& item : artifact.model->inventory) {
    if (item.kind != InventoryClass::kArchive) continue;
    sink.Report(kRule, FileLocation(item.name),
                QuoteForMessage(item.name) + " is " + item.description +
                    "; its members were not inspected (only its YAML and JSON files, for import targets).");
  }
}

}  // namespace ckpt::rules::model_archive
