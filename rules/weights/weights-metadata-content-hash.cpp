// weights-metadata-content-hash: __metadata__ content_hash differs from header.json.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::weights_metadata_content_hash {

const RuleInfo kRule{
    .id = "weights-metadata-content-hash",
    .name = "WeightsMetadataContentHash",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "__metadata__ content_hash differs from header.json",
    .explanation =
        "When a weight file's __metadata__ carries content_hash it must equal "
        "header.json's content_hash: the weights were written for another artifact.",
    .remediation = "Re-export the weights together with their header.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->content_hash) return;
  for (const WeightFile& wf : artifact.weights) {
    for (const auto& [key, value] : wf.metadata) {
      if (key == "content_hash" && value != *h->content_hash) {
        Location loc = FileLocation(wf.name);
        loc.json_pointer = "/__metadata__/content_hash";
        loc.byte_offset = 8;
        sink.Report(kRule, loc,
                    wf.name + " __metadata__ content_hash is " + QuoteForMessage(value, 80) + " but header.json says " +
                        *h->content_hash + ".");
      }
    }
  }
}

}  // namespace ckpt::rules::weights_metadata_content_hash
