// layout-stray-entry: Entry that the artifact layout does not allow.
// Checked here, after the artifact is read.
#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_stray_entry {

const RuleInfo kRule{
    .id = "layout-stray-entry",
    .name = "LayoutStrayEntry",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Entry that the artifact layout does not allow",
    .explanation =
        "The spec says an artifact holds exactly header.json and its weight files (plus "
        "weights.index.json when sharded). Any other file, hidden file or sub-folder (an "
        "optimizer.pt, a pickle, a README) is unverified content travelling with verified"
        " content, and is refused.",
    .remediation = "Remove the entry from the published artifact; ship extra material separately.",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const DirectoryEntry& e : artifact.entries) {
    if (e.kind == EntryKind::kSymlink) continue;  // layout-symlink
    const bool layout_name = e.name == kHeaderFileName || e.name == kShardIndexFileName || IsWeightFileName(e.name);
    if (e.kind == EntryKind::kRegular && layout_name) continue;
    std::string what;
    if (e.kind == EntryKind::kDirectory) {
      what = "a sub-folder";
    } else if (e.kind == EntryKind::kOther) {
      what = "a special file (device, FIFO or socket)";
    } else if (!e.name.empty() && e.name.front() == '.') {
      what = "a hidden file";
    } else {
      what = "a file";
    }
    for (const auto& [name, description] : artifact.entry_descriptions) {
      if (name == e.name) what += ", " + description + ",";
    }
    sink.Report(
        kRule, FileLocation(e.name),
        QuoteForMessage(e.name) + " is " + what +
            " that the artifact layout does not allow; an artifact holds exactly header.json and its weight files.");
  }
}

}  // namespace ckpt::rules::layout_stray_entry
