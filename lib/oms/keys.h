// The keys OpenSSF Model Signing bundles are made with (model-signing spec, ckpt-audit docs):
// ECDSA on P-256, P-384 and P-521 (each with its curve's hash) and, for verifying only,
// Ed25519. Public keys are PEM or DER SubjectPublicKeyInfo; private keys (signing) PEM PKCS#8
// or SEC1, unencrypted. Signatures go through Crypto++, the signer's nonce by RFC 6979.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ckpt::oms {

enum class KeyAlgorithm : std::uint8_t { kEcdsaP256, kEcdsaP384, kEcdsaP521, kEd25519 };

/// "ECDSA P-256", ...: for messages and reports.
std::string_view KeyAlgorithmName(KeyAlgorithm algorithm);

struct PublicKey {
  KeyAlgorithm algorithm = KeyAlgorithm::kEcdsaP256;
  /// The point: for ECDSA uncompressed (0x04 || X || Y), for Ed25519 its 32 bytes.
  std::string point;
  /// The canonical DER SubjectPublicKeyInfo (named curve, uncompressed point).
  std::string spki_der;
  /// model_signing's key hint: lowercase hex SHA-256 of the PEM a PEM writer prints for it.
  std::string hint;
};

struct PrivateKey {
  KeyAlgorithm algorithm = KeyAlgorithm::kEcdsaP256;
  std::string scalar;  ///< big-endian, the curve's size
  PublicKey public_key;
};

/// A key that cannot be used: what is wrong with it (for a usage error, or a finding's text).
struct KeyError {
  std::string message;
};

/// A DER SubjectPublicKeyInfo: ECDSA with a named P-256/P-384/P-521 curve (the point on it)
/// or Ed25519; anything else is an error naming what it is.
std::variant<PublicKey, KeyError> PublicKeyFromSpki(std::string_view der);
/// A PEM "PUBLIC KEY" block (text before the BEGIN line is skipped, as OpenSSL's reader does)
/// or, when `text` is no PEM, a DER SubjectPublicKeyInfo.
std::variant<PublicKey, KeyError> ParsePublicKey(std::string_view text);
/// An unencrypted ECDSA private key: PEM "PRIVATE KEY" (PKCS#8) or "EC PRIVATE KEY" (SEC1,
/// an "EC PARAMETERS" block before it allowed).
std::variant<PrivateKey, KeyError> ParsePrivateKey(std::string_view text);

/// Read a key file (at most 64 KiB): the error says why it cannot be used.
std::variant<PublicKey, KeyError> LoadPublicKeyFile(const std::string& path);
std::variant<PrivateKey, KeyError> LoadPrivateKeyFile(const std::string& path);

/// The DER of the first PEM block labelled one of `labels` (text between blocks, and other
/// blocks, skipped as OpenSSL's PEM reader skips them); the label found goes to `found`.
std::variant<std::string, KeyError> PemBlock(std::string_view text, const std::vector<std::string_view>& labels,
                                             std::string& found);

/// The PEM text of `der` under `label`, as OpenSSL and Python's cryptography print it.
std::string PemOf(std::string_view der, std::string_view label);

/// Which hash an ECDSA signature is checked with: the curve's (the standard), or SHA-256 on
/// every curve (model_signing 0.2's certificate signatures).
enum class SignatureHash : std::uint8_t { kCurveHash, kSha256 };

/// True when `signature` (ECDSA: DER ECDSA-Sig-Value; Ed25519: 64 bytes) is `key`'s over
/// `message`.
bool VerifySignature(const PublicKey& key, std::string_view message, std::string_view signature,
                     SignatureHash hash = SignatureHash::kCurveHash);

/// Deterministic ECDSA (RFC 6979, the curve's hash) over `message`, DER with minimal
/// INTEGERs and s as computed.
std::string SignDeterministic(const PrivateKey& key, std::string_view message);

}  // namespace ckpt::oms
