// weights-files-mismatch: weight_files does not match the weight files present.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::weights_files_mismatch {

const RuleInfo kRule{
    .id = "weights-files-mismatch",
    .name = "WeightsFilesMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "weight_files does not match the weight files present",
    .explanation = "header.json's weight_files must name exactly the weight files in the artifact, "
                    "in order.",
    .remediation = "Publish exactly the weight files the header lists.",
    .security = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->weight_files) return;
  std::vector<std::string> present;
  for (const DirectoryEntry& e : artifact.entries) {
    if (IsWeightFileName(e.name)) present.push_back(e.name);
  }
  for (const std::string& declared : *h->weight_files) {
    if (PathEscapeReason(declared)) continue;  // path-escape reports it
    if (std::find(present.begin(), present.end(), declared) == present.end()) {
      sink.Report(kRule, h->FieldLocation("weight_files"),
                  "weight_files lists " + QuoteForMessage(declared, 80) + " but the artifact has no such file.");
    }
  }
  for (const std::string& file : present) {
    if (std::find(h->weight_files->begin(), h->weight_files->end(), file) == h->weight_files->end()) {
      sink.Report(kRule, FileLocation(file), file + " is in the artifact but weight_files does not list it.");
    }
  }
}

}  // namespace ckpt::rules::weights_files_mismatch
