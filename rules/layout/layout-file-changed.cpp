// layout-file-changed: A file changed while it was being audited.
// Checked on the artifact model after reading (the identities the audit recorded).
#include <filesystem>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_file_changed {

const RuleInfo kRule{
    .id = "layout-file-changed",
    .name = "LayoutFileChanged",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "A file changed while it was being audited",
    .explanation =
        "Every file is bound to its identity (device, inode, size, modification and status-change "
        "time; for a remote file its strong ETag, or Last-Modified and size) when the audit opens it, "
        "and checked again after the last read (remotely: every request carries If-Match, and a "
        "final revalidation asks once more). A file rewritten in place, replaced under its name "
        "(mv), or served as another version while the audit ran means the bytes judged are not "
        "the bytes a later reader gets, so the verdict cannot stand for them.",
    .remediation =
        "Audit artifacts only once they are complete and immutable (write to a temporary name, then "
        "rename); audit again.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = InputKinds::All(),
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const AdmittedFile& f : artifact.files) {
    if (!f.change) continue;
    // A single-file input's one file is admitted as "": name it by the input's own name.
    const std::string shown = f.name.empty() ? std::filesystem::path(artifact.path).filename().string() : f.name;
    if (!f.identity.etag.empty() || !f.identity.last_modified.empty()) {  // a remote file (remote.md section 5)
      sink.Report(kRule, FileLocation(f.name),
                  QuoteForMessage(shown) + " changed on the server during the audit (" + *f.change +
                      "): the verdict cannot stand for its bytes.");
      continue;
    }
    sink.Report(kRule, FileLocation(f.name),
                QuoteForMessage(shown) + " changed while being audited: " + *f.change +
                    "; the verdict cannot stand for its bytes.");
  }
}

}  // namespace ckpt::rules::layout_file_changed
