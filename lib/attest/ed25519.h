// Ed25519 keys as openssl writes them (attestations.md section 1): `openssl genpkey
// -algorithm ed25519` (PEM PKCS#8 PrivateKeyInfo) and `openssl pkey -pubout` (PEM
// SubjectPublicKeyInfo). The PEM and DER are parsed here only as far as Ed25519 keys need,
// strictly: anything else is an error message for a usage error, never a guess.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace ckpt::attest {

struct PublicKey {
  std::array<std::uint8_t, 32> bytes{};
  /// Lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (the DSSE keyid).
  std::string keyid;
};

struct PrivateKey {
  std::array<std::uint8_t, 32> seed{};  ///< RFC 8032's private key
  PublicKey public_key;                 ///< derived from the seed
};

/// A key that could not be read: what is wrong with it, for "<tool>: KEY: <message>".
struct KeyError {
  std::string message;
};

/// Parses a PEM "PUBLIC KEY" holding an Ed25519 SubjectPublicKeyInfo.
std::variant<PublicKey, KeyError> ParsePublicKeyPem(std::string_view text);
/// Parses a PEM "PRIVATE KEY" holding an Ed25519 PKCS#8 (v1, or v2 with a matching public key).
std::variant<PrivateKey, KeyError> ParsePrivateKeyPem(std::string_view text);

/// Reads and parses a key file (at most 16 KiB).
std::variant<PublicKey, KeyError> LoadPublicKey(const std::string& path);
std::variant<PrivateKey, KeyError> LoadPrivateKey(const std::string& path);

/// The DER SubjectPublicKeyInfo of `key` (44 bytes) and its keyid.
std::string SubjectPublicKeyInfoDer(const std::array<std::uint8_t, 32>& key);
PublicKey MakePublicKey(const std::array<std::uint8_t, 32>& key);

/// RFC 8032 Ed25519 (pure): the 64-byte signature of `message`.
std::string Sign(const PrivateKey& key, std::string_view message);
/// True when `signature` (64 bytes) is `key`'s signature of `message`.
bool Verify(const PublicKey& key, std::string_view message, std::string_view signature);

}  // namespace ckpt::attest
