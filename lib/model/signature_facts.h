// What a model signature's verification established (docs/model-signing.md, the report's
// `model_signature`): filled by the engine, read by the reports. Members that do not apply,
// or were not established before a check failed, are absent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ckpt::oms {

struct SignedCertificate {
  std::string subject;  ///< RFC 4514
  std::string issuer;
  std::string sha256;  ///< of the leaf's DER
};

struct ModelSignatureFacts {
  std::string signature;                        ///< the bundle's path as given
  std::optional<std::string> signature_sha256;  ///< SHA-256 of the bundle's bytes as read
  bool verified = false;                        ///< trust, statement and files all hold
  std::string method;                           ///< key, certificate, sigstore
  std::optional<std::string> key_hint;
  std::optional<SignedCertificate> certificate;
  std::optional<std::string> identity;          ///< sigstore: the SAN that matched --identity
  std::optional<std::string> issuer;            ///< sigstore: the OIDC issuer that matched --issuer
  std::optional<std::int64_t> integrated_time;  ///< sigstore: the signed entry timestamp's time (seconds)
  std::optional<std::string> predicate_type;    ///< once the signature verified
  std::optional<std::string> pae;               ///< dsse-v1 or v0.2-compat
  std::optional<std::string> serialization;     ///< files or shards
  std::optional<std::string> hash_type;
  std::optional<std::size_t> files;      ///< model files compared with the statement
  std::optional<std::size_t> resources;  ///< resources the statement lists
  bool root_known = false;               ///< the statement was read: root_digest is its root (or none: legacy)
  std::optional<std::string> root_digest;
};

}  // namespace ckpt::oms
