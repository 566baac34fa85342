// header-wmcp-version-empty: wmcp_version is empty.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_wmcp_version_empty {

const RuleInfo kRule{
    .id = "header-wmcp-version-empty",
    .name = "HeaderWmcpVersionEmpty",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "wmcp_version is empty",
    .explanation =
        "wmcp_version must be a non-empty string; it is hashed and compared along the "
        "chain.",
    .remediation = "Write the WMCP version the round was trained with.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h && h->wmcp_version && h->wmcp_version->empty()) {
    sink.Report(kRule, h->FieldLocation("wmcp_version"), "wmcp_version is an empty string.");
  }
}

}  // namespace ckpt::rules::header_wmcp_version_empty
