// manifest-tensor-missing: Manifest tensor not found in the weight files.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::manifest_tensor_missing {

const RuleInfo kRule{
    .id = "manifest-tensor-missing",
    .name = "ManifestTensorMissing",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Manifest tensor not found in the weight files",
    .explanation =
        "A tensor listed in tensor_manifest is in none of the weight files: the shared "
        "weights are incomplete.",
    .remediation = "Re-export so that the weights hold every manifest tensor.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr || !AllWeightHeadersRead(artifact)) return;
  for (const ManifestEntry& e : *manifest) {
    if (!e.complete || FindStored(artifact, e.name).tensor != nullptr) continue;
    sink.Report(kRule, ManifestLocation(*h, e, "name"),
                "Tensor " + QuoteForMessage(e.name) + " is listed in tensor_manifest but stored in no weight file.");
  }
}

}  // namespace ckpt::rules::manifest_tensor_missing
