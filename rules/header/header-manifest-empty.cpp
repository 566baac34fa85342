// header-manifest-empty: tensor_manifest is empty.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_manifest_empty {

const RuleInfo kRule{
    .id = "header-manifest-empty",
    .name = "HeaderManifestEmpty",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "tensor_manifest is empty",
    .explanation = "An artifact with no tensors shares nothing; an empty manifest is refused.",
    .remediation = "Write the manifest of the shared tensors.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h && h->tensor_manifest && h->tensor_manifest->empty()) {
    sink.Report(kRule, h->FieldLocation("tensor_manifest"),
                "tensor_manifest is empty; an artifact must share tensors.");
  }
}

}  // namespace ckpt::rules::header_manifest_empty
