// header-tensor-size-overflow: Manifest tensor size overflows 64 bits.
// Checked here, after the artifact is read.
#include "lib/model/dtype.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_tensor_size_overflow {

const RuleInfo kRule{
    .id = "header-tensor-size-overflow",
    .name = "HeaderTensorSizeOverflow",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Manifest tensor size overflows 64 bits",
    .explanation =
        "The byte size d0 x d1 x ... x itemsize must stay below 2^64; a shape that "
        "overflows is either corrupt or an attempt to wrap a size check.",
    .remediation = "Fix the shape in the manifest.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (const ManifestEntry& e : *manifest) {
    if (!e.complete) continue;
    const DtypeInfo* dtype = FindManifestDtype(e.dtype);
    if (dtype != nullptr && !ManifestByteSize(e.shape, *dtype)) {
      sink.Report(kRule, ManifestLocation(*h, e, "shape"),
                  "Tensor " + QuoteForMessage(e.name) + " has shape " + ShapeText(e.shape) + " (" + e.dtype +
                      ") whose byte size overflows 64 bits.");
    }
  }
}

}  // namespace ckpt::rules::header_tensor_size_overflow
