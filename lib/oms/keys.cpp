#include "lib/oms/keys.h"

#include <cryptopp/eccrypto.h>
#include <cryptopp/oids.h>
#include <cryptopp/sha.h>
#include <cryptopp/xed25519.h>

#include <array>
#include <vector>

#include "lib/attest/ed25519.h"
#include "lib/core/base64.h"
#include "lib/core/der.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"

namespace ckpt::oms {
namespace {

using namespace std::string_view_literals;

constexpr std::size_t kMaxKeyFileBytes = std::size_t{64} << 10;

// DER contents of the OIDs (RFC 5480, RFC 8410).
constexpr std::string_view kEcPublicKeyOid = "\x2a\x86\x48\xce\x3d\x02\x01"sv;
constexpr std::string_view kP256Oid = "\x2a\x86\x48\xce\x3d\x03\x01\x07"sv;
constexpr std::string_view kP384Oid = "\x2b\x81\x04\x00\x22"sv;
constexpr std::string_view kP521Oid = "\x2b\x81\x04\x00\x23"sv;
constexpr std::string_view kEd25519Oid = "\x2b\x65\x70"sv;
constexpr std::string_view kRsaOid = "\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01"sv;

struct Curve {
  KeyAlgorithm algorithm;
  std::string_view oid;
  std::size_t field_bytes;
};
constexpr std::array<Curve, 3> kCurves = {{
    {KeyAlgorithm::kEcdsaP256, kP256Oid, 32},
    {KeyAlgorithm::kEcdsaP384, kP384Oid, 48},
    {KeyAlgorithm::kEcdsaP521, kP521Oid, 66},
}};

const Curve* CurveOf(KeyAlgorithm algorithm) {
  for (const Curve& c : kCurves) {
    if (c.algorithm == algorithm) return &c;
  }
  return nullptr;
}

CryptoPP::OID CryptoppCurve(KeyAlgorithm algorithm) {
  switch (algorithm) {
    case KeyAlgorithm::kEcdsaP384:
      return CryptoPP::ASN1::secp384r1();
    case KeyAlgorithm::kEcdsaP521:
      return CryptoPP::ASN1::secp521r1();
    default:
      return CryptoPP::ASN1::secp256r1();
  }
}

const CryptoPP::byte* Bytes(std::string_view s) { return reinterpret_cast<const CryptoPP::byte*>(s.data()); }

// The curve a named-curve OID (its DER contents) names, or an error for any other curve
// (explicit parameters are refused before: model_signing's cryptography takes named curves).
std::variant<const Curve*, KeyError> CurveNamed(std::string_view oid) {
  for (const Curve& c : kCurves) {
    if (oid == c.oid) return &c;
  }
  return KeyError{"an EC key on a curve other than P-256, P-384 or P-521"};
}

std::string DescribeOid(std::string_view oid) {
  if (oid == kRsaOid) return "an RSA key";
  if (oid == "\x2b\x65\x71"sv) return "an Ed448 key";
  if (oid == "\x2b\x65\x6e"sv) return "an X25519 key";
  if (oid == "\x2a\x86\x48\xce\x38\x04\x01"sv) return "a DSA key";
  return "a key of an unknown algorithm";
}

// The point `encoded` (SEC1: compressed or uncompressed) on `curve`, uncompressed; nullopt
// when it is not a point of the curve's group.
std::optional<std::string> DecodeEcPoint(const Curve& curve, std::string_view encoded) {
  const CryptoPP::DL_GroupParameters_EC<CryptoPP::ECP> group(CryptoppCurve(curve.algorithm));
  CryptoPP::ECP::Point point;
  if (encoded.empty() || encoded[0] == '\0') return std::nullopt;  // the point at infinity
  try {
    if (!group.GetCurve().DecodePoint(point, Bytes(encoded), encoded.size())) return std::nullopt;
  } catch (const CryptoPP::Exception&) {
    return std::nullopt;
  }
  if (!group.GetCurve().VerifyPoint(point) || point.identity) return std::nullopt;
  std::string out(1 + 2 * curve.field_bytes, '\0');
  group.GetCurve().EncodePoint(reinterpret_cast<CryptoPP::byte*>(out.data()), point, false);
  return out;
}

std::string EcSpki(const Curve& curve, std::string_view uncompressed_point) {
  const std::string algorithm =
      der::Encode(der::kSequence, der::Encode(der::kOid, kEcPublicKeyOid) + der::Encode(der::kOid, curve.oid));
  std::string bits(1, '\0');
  bits.append(uncompressed_point);
  return der::Encode(der::kSequence, algorithm + der::Encode(der::kBitString, bits));
}

PublicKey Finish(PublicKey key) {
  Sha256 sha;
  sha.Update(PemOf(key.spki_der, "PUBLIC KEY"));
  key.hint = sha.FinalHex();
  return key;
}

}  // namespace

std::variant<std::string, KeyError> PemBlock(std::string_view text, const std::vector<std::string_view>& labels,
                                             std::string& found) {
  std::vector<std::string> seen;
  for (std::size_t at = text.find("-----BEGIN "); at != std::string_view::npos; at = text.find("-----BEGIN ", at + 1)) {
    const std::size_t label_at = at + 11;
    const std::size_t label_end = text.find("-----", label_at);
    if (label_end == std::string_view::npos) break;
    const std::string_view label = text.substr(label_at, label_end - label_at);
    bool wanted = false;
    for (std::string_view l : labels) wanted = wanted || l == label;
    if (!wanted) {
      if (seen.size() < 4) seen.emplace_back(label.substr(0, 40));
      continue;
    }
    const std::string end = "-----END " + std::string(label) + "-----";
    const std::size_t body_at = label_end + 5;
    const std::size_t end_at = text.find(end, body_at);
    if (end_at == std::string_view::npos) return KeyError{"no '" + end + "' line"};
    std::string body;
    for (char c : text.substr(body_at, end_at - body_at)) {
      if (c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
      body.push_back(c);
    }
    auto der = Base64Decode(body);
    if (!der) return KeyError{"the PEM body is not base64"};
    found = std::string(label);
    return *der;
  }
  if (seen.empty()) return KeyError{"not a PEM file (no -----BEGIN line)"};
  if (seen.front() == "ENCRYPTED PRIVATE KEY") {
    return KeyError{"an encrypted private key; write it unencrypted (openssl pkey -in KEY -out PLAIN.pem)"};
  }
  return KeyError{"a PEM '" + seen.front() + "' block, not a key of the kind needed"};
}

namespace {

template <class Hash>
bool VerifyEcdsa(const Curve& curve, const PublicKey& key, std::string_view message, std::string_view p1363) {
  const CryptoPP::DL_GroupParameters_EC<CryptoPP::ECP> group(CryptoppCurve(curve.algorithm));
  CryptoPP::ECP::Point point;
  if (!group.GetCurve().DecodePoint(point, Bytes(key.point), key.point.size())) return false;
  typename CryptoPP::ECDSA<CryptoPP::ECP, Hash>::PublicKey public_key;
  public_key.Initialize(group, point);
  const typename CryptoPP::ECDSA<CryptoPP::ECP, Hash>::Verifier verifier(public_key);
  return verifier.VerifyMessage(Bytes(message), message.size(), Bytes(p1363), p1363.size());
}

// An ECDSA-Sig-Value as the fixed-width r || s Crypto++ verifies; nullopt when it is not
// minimal DER or r, s do not fit the curve.
std::optional<std::string> SignatureToP1363(const Curve& curve, std::string_view signature) {
  der::Reader outer(signature);
  auto sequence = outer.Read(der::kSequence);
  if (!sequence || !outer.empty()) return std::nullopt;
  der::Reader fields(*sequence);
  auto r = fields.ReadUnsignedInteger();
  auto s = fields.ReadUnsignedInteger();
  if (!r || !s || !fields.empty() || r->size() > curve.field_bytes || s->size() > curve.field_bytes) {
    return std::nullopt;
  }
  std::string out(2 * curve.field_bytes, '\0');
  out.replace(curve.field_bytes - r->size(), r->size(), *r);
  out.replace(2 * curve.field_bytes - s->size(), s->size(), *s);
  return out;
}

template <class Hash>
std::string SignEcdsaRfc6979(const Curve& curve, const PrivateKey& key, std::string_view message) {
  typename CryptoPP::ECDSA_RFC6979<CryptoPP::ECP, Hash>::PrivateKey private_key;
  private_key.Initialize(CryptoppCurve(curve.algorithm), CryptoPP::Integer(Bytes(key.scalar), key.scalar.size()));
  const typename CryptoPP::ECDSA_RFC6979<CryptoPP::ECP, Hash>::Signer signer(private_key);
  std::string p1363(signer.MaxSignatureLength(), '\0');
  // RFC 6979 derives the nonce from the key and the message: no randomness is drawn.
  const std::size_t length = signer.SignMessage(CryptoPP::NullRNG(), Bytes(message), message.size(),
                                                reinterpret_cast<CryptoPP::byte*>(p1363.data()));
  p1363.resize(length);
  const std::string_view r = std::string_view(p1363).substr(0, length / 2);
  const std::string_view s = std::string_view(p1363).substr(length / 2);
  return der::Encode(der::kSequence, der::EncodeUnsignedInteger(r) + der::EncodeUnsignedInteger(s));
}

// The private key of an ECPrivateKey (RFC 5915) on `curve` (nullptr: its own [0] parameters
// name it), the public key derived from it and checked against the one it carries.
std::variant<PrivateKey, KeyError> FromEcPrivateKey(std::string_view der_bytes, const Curve* curve) {
  der::Reader outer(der_bytes);
  auto sequence = outer.Read(der::kSequence);
  if (!sequence || !outer.empty()) return KeyError{"the EC private key is not one DER ECPrivateKey"};
  der::Reader fields(*sequence);
  auto version = fields.ReadUnsignedInteger();
  auto scalar = fields.Read(der::kOctetString);
  if (!version || *version != std::string_view("\x01", 1) || !scalar) {
    return KeyError{"the EC private key is not a version 1 ECPrivateKey"};
  }
  std::optional<std::string_view> carried_point;
  if (fields.PeekTag() == der::kContext0) {
    auto parameters = fields.Read(der::kContext0);
    if (!parameters) return KeyError{"the EC private key's parameters are not DER"};
    der::Reader parameter_fields(*parameters);
    auto oid = parameter_fields.Read(der::kOid);
    if (!oid || !parameter_fields.empty()) return KeyError{"an EC key without a named curve"};
    auto named = CurveNamed(*oid);
    if (auto* error = std::get_if<KeyError>(&named)) return *error;
    if (curve != nullptr && std::get<const Curve*>(named) != curve) {
      return KeyError{"the EC private key names two different curves"};
    }
    curve = std::get<const Curve*>(named);
  }
  if (fields.PeekTag() == der::kContext1) {
    auto wrapped = fields.Read(der::kContext1);
    der::Reader bits_reader(wrapped ? *wrapped : std::string_view());
    auto bits = bits_reader.Read(der::kBitString);
    if (!bits || !bits_reader.empty() || bits->empty() || (*bits)[0] != '\0') {
      return KeyError{"the EC private key's public key is not a BIT STRING"};
    }
    carried_point = bits->substr(1);
  }
  if (!fields.empty()) return KeyError{"the EC private key has trailing fields"};
  if (curve == nullptr) return KeyError{"the EC private key does not name its curve"};
  if (scalar->size() != curve->field_bytes) return KeyError{"the EC private key's scalar has the wrong length"};

  const CryptoPP::DL_GroupParameters_EC<CryptoPP::ECP> group(CryptoppCurve(curve->algorithm));
  const CryptoPP::Integer d(Bytes(*scalar), scalar->size());
  if (d.IsZero() || d >= group.GetSubgroupOrder()) return KeyError{"the EC private key's scalar is out of range"};
  const CryptoPP::ECP::Point q = group.ExponentiateBase(d);
  std::string point(1 + 2 * curve->field_bytes, '\0');
  group.GetCurve().EncodePoint(reinterpret_cast<CryptoPP::byte*>(point.data()), q, false);
  if (carried_point && DecodeEcPoint(*curve, *carried_point) != point) {
    return KeyError{"the EC private key's public key does not belong to its scalar"};
  }
  PrivateKey out;
  out.algorithm = curve->algorithm;
  out.scalar = std::string(*scalar);
  out.public_key.algorithm = curve->algorithm;
  out.public_key.point = point;
  out.public_key.spki_der = EcSpki(*curve, point);
  out.public_key = Finish(std::move(out.public_key));
  return out;
}

}  // namespace

std::string_view KeyAlgorithmName(KeyAlgorithm algorithm) {
  switch (algorithm) {
    case KeyAlgorithm::kEcdsaP256:
      return "ECDSA P-256";
    case KeyAlgorithm::kEcdsaP384:
      return "ECDSA P-384";
    case KeyAlgorithm::kEcdsaP521:
      return "ECDSA P-521";
    case KeyAlgorithm::kEd25519:
      return "Ed25519";
  }
  return "?";
}

std::string PemOf(std::string_view der, std::string_view label) {
  const std::string body = Base64Encode(der);
  std::string out = "-----BEGIN " + std::string(label) + "-----\n";
  for (std::size_t at = 0; at < body.size(); at += 64) out.append(body, at, 64).push_back('\n');
  return out.append("-----END ").append(label).append("-----\n");
}

std::variant<PublicKey, KeyError> PublicKeyFromSpki(std::string_view der_bytes) {
  der::Reader outer(der_bytes);
  auto spki = outer.Read(der::kSequence);
  if (!spki || !outer.empty()) return KeyError{"not one DER SubjectPublicKeyInfo"};
  der::Reader fields(*spki);
  auto algorithm = fields.Read(der::kSequence);
  auto bits = fields.Read(der::kBitString);
  if (!algorithm || !bits || !fields.empty() || bits->empty() || (*bits)[0] != '\0') {
    return KeyError{"not a SubjectPublicKeyInfo (algorithm and key bits)"};
  }
  der::Reader algorithm_fields(*algorithm);
  auto oid = algorithm_fields.Read(der::kOid);
  if (!oid) return KeyError{"the SubjectPublicKeyInfo has no algorithm"};
  const std::string_view key_bits = bits->substr(1);
  PublicKey key;
  if (*oid == kEd25519Oid) {
    if (!algorithm_fields.empty() || key_bits.size() != 32) return KeyError{"the Ed25519 key is not 32 bytes"};
    key.algorithm = KeyAlgorithm::kEd25519;
    key.point = std::string(key_bits);
    std::array<std::uint8_t, 32> raw{};
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::uint8_t>(key_bits[i]);
    key.spki_der = attest::SubjectPublicKeyInfoDer(raw);
    return Finish(std::move(key));
  }
  if (*oid != kEcPublicKeyOid) return KeyError{DescribeOid(*oid) + ", not an ECDSA or Ed25519 key"};
  auto curve_oid = algorithm_fields.Read(der::kOid);
  if (!curve_oid || !algorithm_fields.empty()) return KeyError{"an EC key without a named curve"};
  auto named = CurveNamed(*curve_oid);
  if (auto* error = std::get_if<KeyError>(&named)) return *error;
  const Curve& curve = *std::get<const Curve*>(named);
  auto point = DecodeEcPoint(curve, key_bits);
  if (!point) return KeyError{"the EC public key is not a point of " + std::string(KeyAlgorithmName(curve.algorithm))};
  key.algorithm = curve.algorithm;
  key.point = *point;
  key.spki_der = EcSpki(curve, *point);
  return Finish(std::move(key));
}

std::variant<PublicKey, KeyError> ParsePublicKey(std::string_view text) {
  if (text.find("-----BEGIN ") == std::string_view::npos) return PublicKeyFromSpki(text);
  std::string label;
  auto block = PemBlock(text, {"PUBLIC KEY"}, label);
  if (auto* error = std::get_if<KeyError>(&block)) return *error;
  return PublicKeyFromSpki(std::get<std::string>(block));
}

std::variant<PrivateKey, KeyError> ParsePrivateKey(std::string_view text) {
  std::string label;
  auto block = PemBlock(text, {"PRIVATE KEY", "EC PRIVATE KEY"}, label);
  if (auto* error = std::get_if<KeyError>(&block)) return *error;
  const std::string& body = std::get<std::string>(block);
  if (label == "EC PRIVATE KEY") return FromEcPrivateKey(body, nullptr);
  // PKCS#8 PrivateKeyInfo: version 0 (or 1 with an optional public key), the algorithm, the key.
  der::Reader outer(body);
  auto info = outer.Read(der::kSequence);
  if (!info || !outer.empty()) return KeyError{"the PEM body is not one DER PrivateKeyInfo"};
  der::Reader fields(*info);
  auto version = fields.ReadUnsignedInteger();
  auto algorithm = fields.Read(der::kSequence);
  auto key = fields.Read(der::kOctetString);
  if (!version || !algorithm || !key) return KeyError{"not a PKCS#8 PrivateKeyInfo"};
  der::Reader algorithm_fields(*algorithm);
  auto oid = algorithm_fields.Read(der::kOid);
  if (!oid) return KeyError{"the private key has no algorithm"};
  if (*oid == kEd25519Oid) {
    return KeyError{"an Ed25519 key; model signatures are ECDSA (P-256, P-384 or P-521), what model_signing verifies"};
  }
  if (*oid != kEcPublicKeyOid) return KeyError{DescribeOid(*oid) + ", not an ECDSA key"};
  auto parameters = algorithm_fields.Read(der::kOid);
  if (!parameters || !algorithm_fields.empty()) return KeyError{"an EC key without a named curve"};
  auto named = CurveNamed(*parameters);
  if (auto* error = std::get_if<KeyError>(&named)) return *error;
  return FromEcPrivateKey(*key, std::get<const Curve*>(named));
}

std::variant<PublicKey, KeyError> LoadPublicKeyFile(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!file.ok()) return KeyError{file.error};
  return ParsePublicKey(file.text);
}

std::variant<PrivateKey, KeyError> LoadPrivateKeyFile(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!file.ok()) return KeyError{file.error};
  return ParsePrivateKey(file.text);
}

bool VerifySignature(const PublicKey& key, std::string_view message, std::string_view signature, SignatureHash hash) {
  if (key.algorithm == KeyAlgorithm::kEd25519) {
    std::array<std::uint8_t, 32> raw{};
    if (key.point.size() != raw.size()) return false;
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::uint8_t>(key.point[i]);
    return attest::Verify(attest::MakePublicKey(raw), message, signature);
  }
  const Curve* curve = CurveOf(key.algorithm);
  if (curve == nullptr) return false;
  auto p1363 = SignatureToP1363(*curve, signature);
  if (!p1363) return false;
  try {
    if (hash == SignatureHash::kSha256) return VerifyEcdsa<CryptoPP::SHA256>(*curve, key, message, *p1363);
    switch (key.algorithm) {
      case KeyAlgorithm::kEcdsaP384:
        return VerifyEcdsa<CryptoPP::SHA384>(*curve, key, message, *p1363);
      case KeyAlgorithm::kEcdsaP521:
        return VerifyEcdsa<CryptoPP::SHA512>(*curve, key, message, *p1363);
      default:
        return VerifyEcdsa<CryptoPP::SHA256>(*curve, key, message, *p1363);
    }
  } catch (const CryptoPP::Exception&) {
    return false;
  }
}

std::string SignDeterministic(const PrivateKey& key, std::string_view message) {
  const Curve* curve = CurveOf(key.algorithm);
  if (curve == nullptr) throw std::logic_error("SignDeterministic: not an ECDSA key");
  switch (key.algorithm) {
    case KeyAlgorithm::kEcdsaP384:
      return SignEcdsaRfc6979<CryptoPP::SHA384>(*curve, key, message);
    case KeyAlgorithm::kEcdsaP521:
      return SignEcdsaRfc6979<CryptoPP::SHA512>(*curve, key, message);
    default:
      return SignEcdsaRfc6979<CryptoPP::SHA256>(*curve, key, message);
  }
}

}  // namespace ckpt::oms
