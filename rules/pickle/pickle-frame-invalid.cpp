// pickle-frame-invalid: Pickle frames that file and memory readers read differently.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_frame_invalid {

const RuleInfo kRule{
    .id = "pickle-frame-invalid",
    .name = "PickleFrameInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle frames that a file reader and a bytes reader read differently",
    .explanation =
        "Protocol 4 and 5 pickles are cut into FRAMEs. CPython's unpickler reading from a file "
        "lets an opcode run across a frame boundary, while pickle.loads and most scanners do not "
        "(cpython#154848): an opcode that straddles a boundary, or a frame whose length does not "
        "end where the next frame starts, hides calls that pickle.load then runs.",
    .remediation = "Regenerate the file with pickle or torch.save, which never split an opcode across frames.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_frame_invalid
