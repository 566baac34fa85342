// path-escape: Declared file name could escape the artifact root.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::path_escape {

const RuleInfo kRule{
    .id = "path-escape",
    .name = "PathEscape",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Declared file name could escape the artifact root",
    .explanation =
        "A name in weight_files or weight_map holds '/', '\\', '..', a leading '/', a "
        "drive prefix or NUL. Such names are path traversal attempts; nothing outside the"
        " artifact root is ever opened.",
    .remediation =
        "Use the bare file names of the layout (weights.safetensors or "
        "weights-IIIII-of-NNNNN.safetensors).",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (const Header* h = ReadableHeader(artifact); h && h->weight_files) {
    for (std::size_t i = 0; i < h->weight_files->size(); ++i) {
      const std::string& name = (*h->weight_files)[i];
      if (auto reason = PathEscapeReason(name)) {
        sink.Report(kRule, h->json.At(h->weight_file_offsets[i], "/weight_files/" + std::to_string(i)),
                    "weight_files entry " + QuoteForMessage(name, 80) + " " + *reason +
                        "; only bare layout file names are allowed and nothing outside the artifact is opened.");
      }
    }
  }
  if (artifact.index && artifact.index->weight_map) {
    const ShardIndex& index = *artifact.index;
    for (const auto& m : *index.weight_map) {
      if (auto reason = PathEscapeReason(m.file)) {
        Location loc = index.json.At(m.value_offset, "/weight_map/" + json::EscapePointerToken(m.tensor));
        loc.tensor = m.tensor;
        sink.Report(kRule, loc,
                    "weight_map sends tensor " + QuoteForMessage(m.tensor) + " to " + QuoteForMessage(m.file, 80) +
                        ", which " + *reason + "; nothing outside the artifact is opened.");
      }
    }
  }
}

}  // namespace ckpt::rules::path_escape
