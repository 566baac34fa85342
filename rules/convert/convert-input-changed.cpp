// convert-input-changed: Checkpoint changed while being converted.
// Reported while converting, by lib/convert/conversion_plan.cpp or engine/convert.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::convert_input_changed {

const RuleInfo kRule{
    .id = "convert-input-changed",
    .name = "ConvertInputChanged",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Checkpoint changed while being converted",
    .explanation =
        "The input file is not the one whose bytes were analysed and copied: its identity (device, "
        "inode, size, times) changed during the run. Whatever was written is not known to come from one "
        "version of it, so nothing is kept.",
    .remediation = "Convert a copy that nothing writes to.",
    .security = true,
    .inputs = InputKinds::All(),
};

}  // namespace ckpt::rules::convert_input_changed
