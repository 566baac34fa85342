// safetensors-noncanonical-whitespace: safetensors header has non-canonical whitespace.
// Checked after reading, on the whitespace facts the safetensors reader records.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::safetensors_noncanonical_whitespace {

const RuleInfo kRule{
    .id = "safetensors-noncanonical-whitespace",
    .name = "SafetensorsNoncanonicalWhitespace",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "safetensors header has non-canonical whitespace",
    .explanation =
        "The header has JSON whitespace before '{' or trailing padding other than spaces."
        " The reference reader accepts it, so it is not corruption, but canonical writers"
        " pad with trailing spaces only.",
    .remediation = "Re-export with a current safetensors writer to get a canonical header.",
    .security = false,
    .inputs = InputKinds::Safetensors(),
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const WeightFile& wf : artifact.weights) {
    if (!wf.leading_whitespace && !wf.odd_padding) continue;
    std::string what = wf.leading_whitespace ? "whitespace before the opening '{'" : "";
    if (wf.odd_padding)
      what += std::string(wf.leading_whitespace ? " and " : "") + "trailing padding other than spaces";
    Location loc = FileLocation(wf.name);
    loc.byte_offset = 8;  // the header text starts after the 8-byte length
    sink.Report(
        kRule, loc,
        wf.name + " has " + what + " in its header; valid, but canonical writers pad with trailing spaces only.");
  }
}

}  // namespace ckpt::rules::safetensors_noncanonical_whitespace
