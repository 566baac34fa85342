// header-weight-files-invalid: weight_files is not a valid file list.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_weight_files_invalid {

const RuleInfo kRule{
    .id = "header-weight-files-invalid",
    .name = "HeaderWeightFilesInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "weight_files is not a valid file list",
    .explanation =
        "weight_files must be [\"weights.safetensors\"], or the names "
        "weights-IIIII-of-NNNNN.safetensors for I = 0 .. N-1 in ascending order with N >="
        " 2.",
    .remediation = "Write the exact list of weight files the writer produced.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->weight_files) return;
  const std::vector<std::string>& files = *h->weight_files;
  for (const std::string& f : files) {
    if (PathEscapeReason(f)) return;  // path-escape is the more specific finding
  }
  if (files.size() == 1 && files[0] == kSingleWeightsFileName) return;
  std::string problem;
  if (files.empty()) {
    problem = "it is empty";
  } else if (files.size() == 1) {
    problem = "a single file must be named weights.safetensors";
  } else {
    const auto count = static_cast<std::uint32_t>(std::min<std::size_t>(files.size(), 99999));
    for (std::uint32_t i = 0; i < files.size() && problem.empty(); ++i) {
      if (files[i] != MakeShardName(i, count)) {
        problem = "entry " + std::to_string(i) + " is " + QuoteForMessage(files[i], 80) + ", expected " +
                  MakeShardName(i, count);
      }
    }
  }
  if (!problem.empty()) {
    sink.Report(kRule, h->FieldLocation("weight_files"),
                "weight_files is not [\"weights.safetensors\"] nor the N >= 2 shard names in order: " + problem + ".");
  }
}

}  // namespace ckpt::rules::header_weight_files_invalid
