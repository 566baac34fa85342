// oms-tlog-invalid: the transparency log does not vouch for a keyless model signature.
// Reported while verifying model signatures: engine/model_signature.cpp reports Diag::kOmsTlogInvalid.
#include "rules/catalog.h"

namespace ckpt::rules::oms_tlog_invalid {

const RuleInfo kRule{
    .id = "oms-tlog-invalid",
    .name = "OmsTlogInvalid",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Transparency log entry does not vouch for the signature",
    .explanation =
        "A Sigstore (keyless) signature is trusted only with a Rekor entry of a log in the trusted root that records "
        "this payload, this signature and this certificate, with a signed entry timestamp that verifies with the "
        "log's key (its integratedTime is the signing time), and an inclusion proof and signed checkpoint that hold "
        "when present. Without that, nothing shows the signature was made while the short-lived certificate was "
        "valid, or that it is public.",
    .remediation =
        "Verify against the trusted root the signer's Sigstore instance publishes; re-sign the model when the entry is "
        "missing or does not match. Do not trust the model meanwhile.",
    .security = true,
};

}  // namespace ckpt::rules::oms_tlog_invalid
