// layout-symlink: Symbolic link inside the artifact.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_symlink {

const RuleInfo kRule{
    .id = "layout-symlink",
    .name = "LayoutSymlink",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Symbolic link inside the artifact",
    .explanation =
        "A symbolic link can point outside the artifact root, so reading it would let an "
        "artifact smuggle in, or disclose, files it does not contain. Links are never "
        "followed.",
    .remediation = "Replace the link with the real file, or remove it.",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const DirectoryEntry& e : artifact.entries) {
    if (e.kind != EntryKind::kSymlink) continue;
    sink.Report(
        kRule, FileLocation(e.name),
        QuoteForMessage(e.name) + " is a symbolic link; links are never followed and are not allowed in an artifact.");
  }
}

}  // namespace ckpt::rules::layout_symlink
