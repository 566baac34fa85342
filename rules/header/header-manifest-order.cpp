// header-manifest-order: tensor_manifest is not strictly ascending by name.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_manifest_order {

const RuleInfo kRule{
    .id = "header-manifest-order",
    .name = "HeaderManifestOrder",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "tensor_manifest is not strictly ascending by name",
    .explanation =
        "Entries must be strictly ascending by the UTF-8 bytes of their names, which also"
        " rules out duplicates; the hash is defined over that order.",
    .remediation = "Sort the manifest by name bytes and remove duplicate entries.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  const auto* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  for (std::size_t i = 1; i < manifest->size(); ++i) {
    const ManifestEntry& prev = (*manifest)[i - 1];
    const ManifestEntry& cur = (*manifest)[i];
    if (!prev.complete || !cur.complete || prev.name < cur.name) continue;
    sink.Report(kRule, ManifestLocation(*h, cur, "name"),
                prev.name == cur.name
                    ? "Tensor " + QuoteForMessage(cur.name) + " appears twice in tensor_manifest (entries " +
                          std::to_string(i - 1) + " and " + std::to_string(i) + ")."
                    : "tensor_manifest entry " + std::to_string(i) + " " + QuoteForMessage(cur.name) +
                          " does not sort after " + QuoteForMessage(prev.name) + " by UTF-8 bytes.");
  }
}

}  // namespace ckpt::rules::header_manifest_order
