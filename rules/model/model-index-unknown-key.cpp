// model-index-unknown-key: Shard index has top-level keys besides metadata and weight_map.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_index_unknown_key {

const RuleInfo kRule{
    .id = "model-index-unknown-key",
    .name = "ModelIndexUnknownKey",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Shard index has top-level keys besides metadata and weight_map",
    .explanation =
        "Loaders read metadata and weight_map and ignore everything else; other top-level keys "
        "are content no loader checks.",
    .remediation = "Remove the extra keys, or keep them inside metadata.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    for (const auto& [key, offset] : index.unknown_keys) {
      sink.Report(kRule, index.json.At(offset, "/" + json::EscapePointerToken(key)),
                  QuoteForMessage(index.json.name) + " has the top-level key " + QuoteForMessage(key) +
                      "; a shard index holds metadata and weight_map, and loaders ignore the rest.");
    }
  }
}

}  // namespace ckpt::rules::model_index_unknown_key
