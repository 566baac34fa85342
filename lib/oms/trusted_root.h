// A Sigstore trusted root (`application/vnd.dev.sigstore.trustedroot+json;version=0.1`), or
// a ClientTrustConfig holding one as `trustedRoot`: the transparency logs, Fulcio certificate
// authorities and certificate transparency logs a keyless model signature is checked
// against, offline. The root is the user's choice of trust, so it is read strictly and a
// root that cannot be used is a usage error, not a finding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lib/oms/keys.h"

namespace ckpt::oms {

inline constexpr std::string_view kTrustedRootMediaType = "application/vnd.dev.sigstore.trustedroot+json;version=0.1";
inline constexpr std::string_view kClientTrustConfigMediaType =
    "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json";

/// A closed-open span of time in milliseconds since the epoch (`end` absent: open-ended).
struct ValidityWindow {
  std::int64_t start_ms = 0;
  std::optional<std::int64_t> end_ms;
  [[nodiscard]] bool Contains(std::int64_t at_ms) const { return at_ms >= start_ms && (!end_ms || at_ms <= *end_ms); }
};

/// A transparency log (Rekor) or certificate transparency log of the root.
struct LogKey {
  std::string base_url;
  std::string key_id;            ///< logId.keyId, raw bytes
  std::optional<PublicKey> key;  ///< nullopt when the algorithm is not one this verifier has
  std::string unsupported;       ///< what the key is, when `key` is nullopt
  ValidityWindow valid_for;
};

struct CertificateAuthority {
  std::string uri;
  std::vector<std::string> chain;  ///< DER, the issuing certificate first, the root last
  ValidityWindow valid_for;
};

struct TrustedRoot {
  std::vector<LogKey> tlogs;
  std::vector<LogKey> ctlogs;
  std::vector<CertificateAuthority> certificate_authorities;
};

/// Reads a trusted root or a ClientTrustConfig; the error says what is wrong with it.
std::variant<TrustedRoot, std::string> ParseTrustedRoot(std::string_view text);
/// The same from a file (at most 4 MiB).
std::variant<TrustedRoot, std::string> LoadTrustedRootFile(const std::string& path);

/// RFC 3339 (`2021-01-12T11:53:27.000Z`, any fraction, `Z` or an offset) as milliseconds
/// since the epoch; nullopt for anything else.
std::optional<std::int64_t> ParseRfc3339Millis(std::string_view text);

}  // namespace ckpt::oms
