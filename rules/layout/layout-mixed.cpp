// layout-mixed: Both the single-file and the sharded layout are present.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_mixed {

const RuleInfo kRule{
    .id = "layout-mixed",
    .name = "LayoutMixed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Both the single-file and the sharded layout are present",
    .explanation =
        "weights.safetensors and weights-IIIII-of-NNNNN.safetensors (or "
        "weights.index.json) in one artifact make it ambiguous which tensors are meant; "
        "the spec allows exactly one layout.",
    .remediation =
        "Keep one layout: either weights.safetensors alone, or the shards with "
        "weights.index.json.",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (artifact.layout != Layout::kMixed) return;
  std::string sharded;
  for (const DirectoryEntry& e : artifact.entries) {
    if (ParseShardName(e.name) || e.name == kShardIndexFileName) sharded += (sharded.empty() ? "" : ", ") + e.name;
  }
  sink.Report(
      kRule, FileLocation(std::string(kSingleWeightsFileName)),
      "The artifact holds weights.safetensors and sharded files (" + sharded + "); exactly one layout is allowed.");
}

}  // namespace ckpt::rules::layout_mixed
