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
    .explanation =
        "header.json's weight_files must name exactly the weight files in the artifact, "
        "in order.",
    .remediation = "Publish exactly the weight files the header lists.",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->weight_files) return;
  std::vector<std::string_view> present;
  NameSet present_set;
  NameSet declared_set;
  for (const DirectoryEntry& e : artifact.entries) {
    if (IsWeightFileName(e.name)) {
      present.push_back(e.name);
      present_set.Add(e.name);
    }
  }
  for (const std::string& declared : *h->weight_files) declared_set.Add(declared);
  present_set.Seal();
  declared_set.Seal();
  for (const std::string& declared : *h->weight_files) {
    if (PathEscapeReason(declared)) continue;  // path-escape reports it
    if (!present_set.Contains(declared)) {
      sink.Report(kRule, h->FieldLocation("weight_files"),
                  "weight_files lists " + QuoteForMessage(declared, 80) + " but the artifact has no such file.");
    }
  }
  for (std::string_view file : present) {
    if (!declared_set.Contains(file)) {
      sink.Report(kRule, FileLocation(std::string(file)),
                  std::string(file) + " is in the artifact but weight_files does not list it.");
    }
  }
}

}  // namespace ckpt::rules::weights_files_mismatch
