// X.509 path validation for certificate-method model signatures, through OpenSSL's libcrypto
// (the one place the project uses it; keys and signatures stay on Crypto++). What
// model_signing's certificate verifier does: the given roots trusted, the bundle's further
// certificates untrusted intermediates, no partial chains, the check at the leaf's notBefore.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ckpt::oms {

struct CertificateFacts {
  std::string subject;  ///< RFC 4514 (most specific RDN first), display-safe as OpenSSL prints it
  std::string issuer;
  std::string sha256;    ///< lowercase hex of the DER
  std::string spki_der;  ///< the certificate's SubjectPublicKeyInfo
  std::time_t not_before = 0;
  bool signing_usage = false;  ///< KeyUsage digitalSignature, or ExtendedKeyUsage codeSigning
};

/// The facts of one DER certificate; nullopt when OpenSSL cannot parse it.
std::optional<CertificateFacts> DescribeCertificate(std::string_view der);

/// Every certificate of a PEM file, as DER; an error message when the file cannot be read or
/// holds none (at most 1 MiB).
std::variant<std::vector<std::string>, std::string> LoadCertificatesPem(const std::string& path);

struct PathResult {
  bool valid = false;
  std::string error;  ///< OpenSSL's verify error and the certificate it concerns, when not valid
};

/// Validates `leaf` (DER) through `intermediates` (untrusted) to a self-signed certificate of
/// `trusted`, every certificate valid at `at` (by default the leaf's notBefore).
PathResult VerifyCertificatePath(std::string_view leaf, const std::vector<std::string>& intermediates,
                                 const std::vector<std::string>& trusted, std::optional<std::time_t> at = std::nullopt);

}  // namespace ckpt::oms
