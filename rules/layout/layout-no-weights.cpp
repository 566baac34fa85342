// layout-no-weights: No weight file.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_no_weights {

const RuleInfo kRule{
    .id = "layout-no-weights",
    .name = "LayoutNoWeights",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "No weight file",
    .explanation =
        "The artifact holds no weights.safetensors and no shard, so the manifest cannot "
        "be checked against any tensor data.",
    .remediation = "Publish the weight files together with header.json.",
    .security = false,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const DirectoryEntry& e : artifact.entries) {
    if (IsWeightFileName(e.name)) return;
  }
  sink.Report(kRule, FileLocation(std::string(kSingleWeightsFileName)),
              "The artifact " + artifact.path +
                  " holds no weights.safetensors and no weights-IIIII-of-NNNNN.safetensors shard.");
}

}  // namespace ckpt::rules::layout_no_weights
