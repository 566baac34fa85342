// weights-metadata-schema-version: __metadata__ schema_version differs from header.json.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::weights_metadata_schema_version {

const RuleInfo kRule{
    .id = "weights-metadata-schema-version",
    .name = "WeightsMetadataSchemaVersion",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "__metadata__ schema_version differs from header.json",
    .explanation =
        "When a weight file's __metadata__ carries schema_version it must equal the "
        "decimal string of header.json's schema_version as written.",
    .remediation = "Re-export the weights together with their header.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->schema_version) return;
  const std::string expected = std::to_string(*h->schema_version);
  for (const WeightFile& wf : artifact.weights) {
    for (const auto& [key, value] : wf.metadata) {
      if (key == "schema_version" && value != expected) {
        Location loc = FileLocation(wf.name);
        loc.json_pointer = "/__metadata__/schema_version";
        loc.byte_offset = 8;
        sink.Report(kRule, loc,
                    wf.name + " __metadata__ schema_version is " + QuoteForMessage(value, 40) +
                        " but header.json has schema_version " + expected + ".");
      }
    }
  }
}

}  // namespace ckpt::rules::weights_metadata_schema_version
