// layout-header-missing: header.json is missing.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_header_missing {

const RuleInfo kRule{
    .id = "layout-header-missing",
    .name = "LayoutHeaderMissing",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "header.json is missing",
    .explanation =
        "An artifact is described by its header.json: without it there is no schema "
        "version, manifest or content hash to verify, so nothing in the directory can be "
        "trusted.",
    .remediation =
        "Publish the artifact with the header.json its writer produced; do not "
        "reconstruct one by hand.",
    .security = false,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const DirectoryEntry& e : artifact.entries) {
    if (e.name != "header.json") continue;
    if (e.kind == EntryKind::kRegular) return;
    sink.Report(kRule, FileLocation("header.json"),
                "header.json in " + artifact.path + " is not a regular file, so the artifact has no header.");
    return;
  }
  sink.Report(kRule, FileLocation("header.json"), "The artifact " + artifact.path + " has no header.json.");
}

}  // namespace ckpt::rules::layout_header_missing
