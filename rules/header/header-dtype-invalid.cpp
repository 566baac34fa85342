// header-dtype-invalid: Manifest dtype is not float32, bfloat16 or float16.
// Checked here, after the artifact is read.
#include "lib/model/dtype.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_dtype_invalid {

const RuleInfo kRule{
    .id = "header-dtype-invalid",
    .name = "HeaderDtypeInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Manifest dtype is not float32, bfloat16 or float16",
    .explanation = "Only the three manifest dtype tokens of section 3 are allowed in an artifact.",
    .remediation = "Convert the tensor to float32, bfloat16 or float16 before export.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    if (e.complete && FindManifestDtype(e.dtype) == nullptr) {
      sink.Report(kRule, ManifestLocation(*h, e, "dtype"),
                  "Tensor " + QuoteForMessage(e.name) + " has dtype " + QuoteForMessage(e.dtype) +
                      "; the manifest allows float32, bfloat16 and float16.");
    }
  }
}

}  // namespace ckpt::rules::header_dtype_invalid
