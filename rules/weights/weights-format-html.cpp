// weights-format-html: Weight file is an HTML page.
// Detected while reading, by lib/formats/content_sniffer.cpp (called by
// lib/formats/safetensors/safetensors_reader.cpp).
#include "rules/catalog.h"

namespace ckpt::rules::weights_format_html {

const RuleInfo kRule{
    .id = "weights-format-html",
    .name = "WeightsFormatHtml",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Weight file is an HTML page",
    .explanation =
        "The file is HTML, typically an error or login page saved in place of the "
        "download.",
    .remediation = "Download the weights again from an authenticated, working URL.",
    .security = false,
    .tier = Tier::kRootCause,
};

}  // namespace ckpt::rules::weights_format_html
