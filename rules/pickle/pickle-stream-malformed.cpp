// pickle-stream-malformed: Malformed pickle stream.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_stream_malformed {

const RuleInfo kRule{
    .id = "pickle-stream-malformed",
    .name = "PickleStreamMalformed",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Malformed pickle stream",
    .explanation =
        "The stream does not run as CPython's unpickler runs it: an unknown opcode, a truncation, "
        "a stack or mark underflow, a memo key never written, values left at STOP. Loaders differ "
        "on such streams, and a payload placed before the break still runs.",
    .remediation = "Regenerate the file with torch.save, or better, with safetensors.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_stream_malformed
