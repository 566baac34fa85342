// The parts of a Fulcio (Sigstore) signing certificate a keyless verification reads itself,
// with the strict DER reader: its extensions, the identity (subject alternative names and the
// OIDC issuer) and the embedded signed certificate timestamps with the RFC 6962 precertificate
// they sign. Path validation stays with OpenSSL (lib/oms/x509_path.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ckpt::oms {

struct CertificateExtension {
  std::string_view oid;  ///< the OID's DER contents
  bool critical = false;
  std::string_view value;  ///< extnValue's contents
  std::string_view whole;  ///< the Extension element as written
};

/// The extensions of a DER certificate, in order; nullopt when it is not DER X.509 v3.
std::optional<std::vector<CertificateExtension>> CertificateExtensions(std::string_view certificate);

struct CertificateIdentity {
  std::vector<std::string> emails;         ///< rfc822Name SANs
  std::vector<std::string> uris;           ///< uniformResourceIdentifier SANs
  std::optional<std::string> oidc_issuer;  ///< 1.3.6.1.4.1.57264.1.8, else the legacy .1.1
};

/// Who Fulcio says the certificate is for; an error when the extensions are malformed.
std::variant<CertificateIdentity, std::string> IdentityOf(std::string_view certificate);

/// A workflow identity pattern (--identity-pattern): literal but for `*` (one or more
/// characters other than '/') and `**` (one or more of any), matched against the whole
/// identity, never a part of it. It must start with https:// and name the host, the owner and
/// the repository literally (no wildcard before the fifth '/'), so that a pattern cannot
/// admit another repository's workflow. The error says why a pattern is refused.
std::optional<std::string> IdentityPatternError(std::string_view pattern);
bool IdentityMatchesPattern(std::string_view pattern, std::string_view identity);

/// One signed certificate timestamp (RFC 6962 3.2), as embedded in a certificate.
struct SignedTimestamp {
  std::string log_id;  ///< 32 bytes: SHA-256 of the log's key
  std::uint64_t timestamp_ms = 0;
  std::string extensions;
  std::uint8_t hash_algorithm = 0;       ///< TLS HashAlgorithm (4: sha256)
  std::uint8_t signature_algorithm = 0;  ///< TLS SignatureAlgorithm (3: ecdsa)
  std::string signature;
};

struct EmbeddedTimestamps {
  std::vector<SignedTimestamp> timestamps;
  std::string precertificate_tbs;  ///< the TBSCertificate without the SCT list extension
};

/// The embedded SCTs (extension 1.3.6.1.4.1.11129.2.4.2) and the precertificate TBS they
/// sign; an error when there is none or the list is malformed.
std::variant<EmbeddedTimestamps, std::string> EmbeddedTimestampsOf(std::string_view certificate);

/// The bytes an SCT's log signed for a precertificate entry (RFC 6962 3.2).
std::string PrecertificateSignedData(const SignedTimestamp& sct, std::string_view issuer_key_hash,
                                     std::string_view precertificate_tbs);

}  // namespace ckpt::oms
