// oms-cert-untrusted: Signing certificate does not chain to a trusted root.
// Reported while verifying signed statements: lib/oms/ reports Diag::kOmsCertUntrusted.
#include "rules/catalog.h"

namespace ckpt::rules::oms_cert_untrusted {

const RuleInfo kRule{
    .id = "oms-cert-untrusted",
    .name = "OmsCertUntrusted",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Signing certificate does not chain to a trusted root",
    .explanation =
        "No valid certification path leads from the bundle's leaf certificate, through the intermediates it carries, "
        "to a self-signed certificate of --trusted-cert-chain, with every certificate valid when the leaf was issued "
        "(its notBefore). An intermediate alone is not a trust anchor. For a keyless (Sigstore) bundle: no path to the "
        "root of a Fulcio authority of --sigstore-trusted-root that was valid at the signing time (the Rekor entry's "
        "integratedTime), every certificate valid then.",
    .remediation =
        "Give the root certificate the publisher's chain ends at; do not trust the model when the chain does not hold.",
    .security = true,
};

}  // namespace ckpt::rules::oms_cert_untrusted
