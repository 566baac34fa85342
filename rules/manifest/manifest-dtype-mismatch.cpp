// manifest-dtype-mismatch: Manifest dtype differs from the weight file.
// Checked here, after the artifact is read.
#include "lib/model/dtype.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::manifest_dtype_mismatch {

const RuleInfo kRule{
    .id = "manifest-dtype-mismatch",
    .name = "ManifestDtypeMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Manifest dtype differs from the weight file",
    .explanation =
        "The dtype in tensor_manifest, mapped through section 3, must equal the dtype "
        "stored in the weight file.",
    .remediation = "Re-export so that header and weights agree.",
    .security = true,
    .tier = Tier::kConsequence,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    const DtypeInfo* dtype = e.complete ? FindManifestDtype(e.dtype) : nullptr;
    StoredRef stored = FindStored(artifact, e.name);
    if (dtype == nullptr || stored.tensor == nullptr || stored.tensor->dtype.empty()) continue;
    if (stored.tensor->dtype != dtype->safetensors) {
      sink.Report(kRule, stored.file->TensorLocation(*stored.tensor),
                  "Tensor " + QuoteForMessage(e.name) + " is " + e.dtype + " (" + std::string(dtype->safetensors) +
                      ") in tensor_manifest but " + QuoteForMessage(stored.tensor->dtype) + " in " + stored.file->name +
                      ".");
    }
  }
}

}  // namespace ckpt::rules::manifest_dtype_mismatch
