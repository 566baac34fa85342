// model-special-file: Device, FIFO or socket in a model folder.
// Checked on the artifact model after reading (model folders).
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_special_file {

const RuleInfo kRule{
    .id = "model-special-file",
    .name = "ModelSpecialFile",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Device, FIFO or socket in a model folder",
    .explanation =
        "A model folder holds regular files and folders. A device node, FIFO or socket has no "
        "content to verify; a FIFO blocks whatever opens it, and a device reads from the machine "
        "itself. It is never opened.",
    .remediation = "Remove the special file from the model folder.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = {InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const std::string& name : artifact.model->special_files) {
    sink.Report(kRule, FileLocation(name),
                QuoteForMessage(name) +
                    " is a device, FIFO or socket; a model folder holds regular files only, and it "
                    "was not opened.");
  }
}

}  // namespace ckpt::rules::model_special_file
