// An OpenSSF Model Signing signature file (`model.sig`): a Sigstore bundle v0.3 holding a DSSE
// envelope, read strictly (docs/model-signing.md). Reading reports what is wrong as oms-*
// diagnostics and yields the envelope and the verification material; it trusts nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/json/json_value.h"
#include "lib/model/diagnostic.h"

namespace ckpt::oms {

inline constexpr std::string_view kBundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json";
/// The same type as older Sigstore clients spell it (accepted for Sigstore bundles only).
inline constexpr std::string_view kBundleMediaTypeAlternative = "application/vnd.dev.sigstore.bundle+json;version=0.3";
inline constexpr std::string_view kInTotoPayloadType = "application/vnd.in-toto+json";
/// Bundles are read whole; larger files are refused before reading.
inline constexpr std::uint64_t kMaxBundleBytes = std::uint64_t{64} << 20;

enum class Material : std::uint8_t {
  kNone,              ///< no verification material member the verifier knows
  kPublicKey,         ///< `publicKey`: a key the verifier is given
  kCertificateChain,  ///< `x509CertificateChain`: leaf first
  kCertificate,       ///< `certificate`: one Fulcio certificate (Sigstore)
};

struct Bundle {
  std::string media_type;
  Material material = Material::kNone;
  std::optional<std::string> key_hint;       ///< publicKey.hint
  std::optional<std::string> key_raw_bytes;  ///< publicKey.rawBytes, decoded (a PEM or DER key: never trusted)
  std::vector<std::string> certificates;     ///< DER, leaf first (x509CertificateChain, or the one certificate)
  /// The parsed bundle, which `tlog_entries` points into (shared: a Bundle stays copyable).
  std::shared_ptr<const json::Document> document;
  std::optional<json::Value> tlog_entries;  ///< verificationMaterial.tlogEntries (an array), when present
  std::string payload_type;
  std::string payload;    ///< decoded
  std::string signature;  ///< decoded sig of the one signature
  std::uint64_t payload_offset = 0;
  std::uint64_t signature_offset = 0;
};

/// Reads `text` as a bundle. Reports oms-bundle-invalid (and nothing else): the shape only.
std::optional<Bundle> ParseBundle(std::string_view text, const FileReporter& report);

/// DSSE v1's pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload.
std::string StandardPae(std::string_view payload_type, std::string_view payload);
/// model_signing 0.2's: "DSSEV1" SP LEN(type) SP type SP LEN(payload) SP REPR(payload), REPR
/// what Python 3 prints for the payload as a bytes object.
std::string LegacyPae(std::string_view payload_type, std::string_view payload);
/// Python 3's repr() of `bytes` (b'...' or b"...").
std::string PythonBytesRepr(std::string_view bytes);

}  // namespace ckpt::oms
