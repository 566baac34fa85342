// pickle-scanner-import: Pickle imports a model scanner.
// Detected while reading, by lib/formats/pickle_analyser.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::pickle_scanner_import {

const RuleInfo kRule{
    .id = "pickle-scanner-import",
    .name = "PickleScannerImport",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Pickle imports a model scanner",
    .explanation =
        "A pickle that imports fickling, picklescan, modelscan or this tool can patch or fool the "
        "scanner that inspects it; no legitimate checkpoint refers to a scanner.",
    .remediation = "Treat the file as hostile: do not load it, and report where it came from.",
    .security = true,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::pickle_scanner_import
