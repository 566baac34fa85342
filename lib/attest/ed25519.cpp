#include "lib/attest/ed25519.h"

#include <cryptopp/xed25519.h>

#include <array>
#include <optional>

#include "lib/core/base64.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"

namespace ckpt::attest {
namespace {

constexpr std::size_t kMaxKeyFileBytes = std::size_t{16} << 10;
// The algorithm identifier of RFC 8410: SEQUENCE { OID 1.3.101.112 } (no parameters).
constexpr std::string_view kEd25519AlgorithmId = "\x30\x05\x06\x03\x2b\x65\x70";

// The base64 body of the one PEM block labelled `label`; text around it may only be
// whitespace. Lines end with LF or CRLF.
std::variant<std::string, KeyError> PemBody(std::string_view text, std::string_view label) {
  const std::string begin = "-----BEGIN " + std::string(label) + "-----";
  const std::string end = "-----END " + std::string(label) + "-----";
  const std::size_t first = text.find("-----BEGIN ");
  if (first == std::string_view::npos) return KeyError{"not a PEM file (no -----BEGIN line)"};
  for (char c : text.substr(0, first)) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return KeyError{"text before the PEM -----BEGIN line"};
  }
  if (text.compare(first, begin.size(), begin) != 0) {
    const std::size_t eol = text.find('-', first + 11);
    const std::string found(text.substr(first + 11, eol == std::string_view::npos ? 0 : eol - first - 11));
    if (found == "ENCRYPTED PRIVATE KEY") {
      return KeyError{
          "an encrypted private key; write it unencrypted (openssl pkey -in KEY -out PLAIN.pem) and keep "
          "it private"};
    }
    return KeyError{"a PEM '" + found.substr(0, 40) + "' block, not '" + std::string(label) + "'"};
  }
  std::size_t at = first + begin.size();
  std::string body;
  bool ended = false;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    at = eol + 1;
    if (line.empty() && body.empty()) continue;  // the rest of the BEGIN line
    if (line == end) {
      ended = true;
      break;
    }
    if (line.size() > 76) return KeyError{"a PEM line longer than 76 characters"};
    body.append(line);
  }
  if (!ended) return KeyError{"no '" + end + "' line"};
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return KeyError{"text after the PEM -----END line"};
  }
  auto der = Base64Decode(body);
  if (!der) return KeyError{"the PEM body is not base64"};
  return *der;
}

// A minimal DER reader: one TLV with a definite, minimally encoded length.
class Der {
 public:
  explicit Der(std::string_view bytes) : rest_(bytes) {}
  [[nodiscard]] bool empty() const { return rest_.empty(); }
  [[nodiscard]] std::optional<std::uint8_t> PeekTag() const {
    return rest_.empty() ? std::nullopt : std::optional<std::uint8_t>(static_cast<std::uint8_t>(rest_[0]));
  }
  /// The contents of the next element if its tag is `tag`.
  std::optional<std::string_view> Read(std::uint8_t tag) {
    if (rest_.size() < 2 || static_cast<std::uint8_t>(rest_[0]) != tag) return std::nullopt;
    std::size_t length = static_cast<std::uint8_t>(rest_[1]);
    std::size_t header = 2;
    if (length & 0x80) {
      const std::size_t octets = length & 0x7F;
      if (octets == 0 || octets > 2 || rest_.size() < 2 + octets) return std::nullopt;
      length = 0;
      for (std::size_t i = 0; i < octets; ++i) length = (length << 8) | static_cast<std::uint8_t>(rest_[2 + i]);
      if (length < 0x80 || (octets == 2 && length < 0x100)) return std::nullopt;  // not minimal
      header += octets;
    }
    if (rest_.size() - header < length) return std::nullopt;
    std::string_view contents = rest_.substr(header, length);
    rest_.remove_prefix(header + length);
    return contents;
  }

 private:
  std::string_view rest_;
};

// The algorithm identifier's OID in dotted form, for "not an Ed25519 key" messages.
std::string DescribeAlgorithm(std::string_view algorithm_id) {
  Der seq(algorithm_id);
  auto contents = seq.Read(0x30);
  if (!contents) return "an unreadable algorithm";
  Der inner(*contents);
  auto oid = inner.Read(0x06);
  if (!oid || oid->empty()) return "an unreadable algorithm";
  std::string dotted = std::to_string(static_cast<std::uint8_t>((*oid)[0]) / 40) + "." +
                       std::to_string(static_cast<std::uint8_t>((*oid)[0]) % 40);
  std::uint64_t value = 0;
  for (std::size_t i = 1; i < oid->size() && i < 32; ++i) {
    value = (value << 7) | (static_cast<std::uint8_t>((*oid)[i]) & 0x7F);
    if ((static_cast<std::uint8_t>((*oid)[i]) & 0x80) == 0) {
      dotted += "." + std::to_string(value);
      value = 0;
    }
  }
  if (dotted == "1.2.840.113549.1.1.1") return "an RSA key";
  if (dotted == "1.2.840.10045.2.1") return "an EC key";
  if (dotted == "1.3.101.113") return "an Ed448 key";
  if (dotted == "1.3.101.110") return "an X25519 key";
  return "a key of algorithm " + dotted;
}

std::string ReadAlgorithm(Der& der) {
  // Re-read the raw TLV so it can be compared byte for byte.
  Der probe = der;
  auto contents = probe.Read(0x30);
  if (!contents) return {};
  const std::size_t length = contents->size() + 2;  // short form: algorithm ids are tiny
  auto read = der.Read(0x30);
  return std::string(read->data() - 2, length);
}

std::array<std::uint8_t, 32> ToKey(std::string_view bytes) {
  std::array<std::uint8_t, 32> key{};
  for (std::size_t i = 0; i < 32; ++i) key[i] = static_cast<std::uint8_t>(bytes[i]);
  return key;
}

std::variant<std::string, KeyError> ReadKeyFile(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!file.ok()) return KeyError{file.error};
  return std::move(file.text);
}

}  // namespace

std::string SubjectPublicKeyInfoDer(const std::array<std::uint8_t, 32>& key) {
  std::string der("\x30\x2a", 2);
  der.append(kEd25519AlgorithmId);
  der.append("\x03\x21\x00", 3);
  der.append(reinterpret_cast<const char*>(key.data()), key.size());
  return der;
}

PublicKey MakePublicKey(const std::array<std::uint8_t, 32>& key) {
  PublicKey out;
  out.bytes = key;
  Sha256 sha;
  sha.Update(SubjectPublicKeyInfoDer(key));
  out.keyid = sha.FinalHex();
  return out;
}

std::variant<PublicKey, KeyError> ParsePublicKeyPem(std::string_view text) {
  auto body = PemBody(text, "PUBLIC KEY");
  if (auto* e = std::get_if<KeyError>(&body)) return *e;
  Der outer(std::get<std::string>(body));
  auto spki = outer.Read(0x30);
  if (!spki || !outer.empty()) return KeyError{"the PEM body is not one DER SubjectPublicKeyInfo"};
  Der fields(*spki);
  const std::string algorithm = ReadAlgorithm(fields);
  if (algorithm.empty()) return KeyError{"the SubjectPublicKeyInfo has no algorithm identifier"};
  if (algorithm != kEd25519AlgorithmId) return KeyError{DescribeAlgorithm(algorithm) + ", not an Ed25519 key"};
  auto bits = fields.Read(0x03);
  if (!bits || !fields.empty() || bits->size() != 33 || (*bits)[0] != '\0') {
    return KeyError{"the Ed25519 public key is not 32 bytes in a BIT STRING"};
  }
  return MakePublicKey(ToKey(bits->substr(1)));
}

std::variant<PrivateKey, KeyError> ParsePrivateKeyPem(std::string_view text) {
  auto body = PemBody(text, "PRIVATE KEY");
  if (auto* e = std::get_if<KeyError>(&body)) return *e;
  Der outer(std::get<std::string>(body));
  auto info = outer.Read(0x30);
  if (!info || !outer.empty()) return KeyError{"the PEM body is not one DER PKCS#8 PrivateKeyInfo"};
  Der fields(*info);
  auto version = fields.Read(0x02);
  if (!version || version->size() != 1 || ((*version)[0] != '\0' && (*version)[0] != '\1')) {
    return KeyError{"the PKCS#8 version is not 0 or 1"};
  }
  const bool v2 = (*version)[0] == '\1';
  const std::string algorithm = ReadAlgorithm(fields);
  if (algorithm.empty()) return KeyError{"the PKCS#8 key has no algorithm identifier"};
  if (algorithm != kEd25519AlgorithmId) return KeyError{DescribeAlgorithm(algorithm) + ", not an Ed25519 key"};
  auto wrapped = fields.Read(0x04);
  if (!wrapped) return KeyError{"the PKCS#8 key has no private key OCTET STRING"};
  Der inner(*wrapped);
  auto seed = inner.Read(0x04);
  if (!seed || !inner.empty() || seed->size() != 32) return KeyError{"the Ed25519 private key is not 32 bytes"};
  if (fields.PeekTag() == 0xA0 && !fields.Read(0xA0)) return KeyError{"the PKCS#8 attributes are malformed"};
  std::optional<std::string_view> embedded_public;
  if (fields.PeekTag() == 0x81) {
    if (!v2) return KeyError{"a PKCS#8 version 0 key carries a public key (only version 1 may)"};
    embedded_public = fields.Read(0x81);
    if (!embedded_public || embedded_public->size() != 33 || (*embedded_public)[0] != '\0') {
      return KeyError{"the PKCS#8 public key is not 32 bytes"};
    }
  }
  if (!fields.empty()) return KeyError{"unexpected fields after the PKCS#8 private key"};

  PrivateKey key;
  key.seed = ToKey(*seed);
  CryptoPP::ed25519Signer signer(key.seed.data());
  const auto& material = dynamic_cast<const CryptoPP::ed25519PrivateKey&>(signer.GetPrivateKey());
  std::array<std::uint8_t, 32> public_bytes{};
  std::copy_n(material.GetPublicKeyBytePtr(), 32, public_bytes.begin());
  key.public_key = MakePublicKey(public_bytes);
  if (embedded_public &&
      embedded_public->substr(1) != std::string_view(reinterpret_cast<const char*>(public_bytes.data()), 32)) {
    return KeyError{"the PKCS#8 public key does not belong to its private key"};
  }
  return key;
}

std::variant<PublicKey, KeyError> LoadPublicKey(const std::string& path) {
  auto text = ReadKeyFile(path);
  if (auto* e = std::get_if<KeyError>(&text)) return *e;
  return ParsePublicKeyPem(std::get<std::string>(text));
}

std::variant<PrivateKey, KeyError> LoadPrivateKey(const std::string& path) {
  auto text = ReadKeyFile(path);
  if (auto* e = std::get_if<KeyError>(&text)) return *e;
  return ParsePrivateKeyPem(std::get<std::string>(text));
}

std::string Sign(const PrivateKey& key, std::string_view message) {
  CryptoPP::ed25519Signer signer(key.seed.data());
  std::string signature(CryptoPP::ed25519Signer::SIGNATURE_LENGTH, '\0');
  // Ed25519 signatures are deterministic: no randomness is drawn.
  signer.SignMessage(CryptoPP::NullRNG(), reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size(),
                     reinterpret_cast<CryptoPP::byte*>(signature.data()));
  return signature;
}

namespace {

// The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian.
constexpr std::array<std::uint8_t, 32> kGroupOrder = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                                      0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                                      0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};

// S < L (RFC 8032 section 5.1.7): S + L verifies in a lax verifier, a second encoding of one
// signature.
bool ScalarIsReduced(const std::uint8_t* s) {
  for (std::size_t i = 32; i-- > 0;) {
    if (s[i] != kGroupOrder[i]) return s[i] < kGroupOrder[i];
  }
  return false;  // S == L
}

// A point encoding whose y (the low 255 bits) is below p = 2^255 - 19.
bool PointIsCanonical(const std::uint8_t* p) {
  if ((p[31] & 0x7f) != 0x7f) return true;
  for (std::size_t i = 30; i >= 1; --i) {
    if (p[i] != 0xff) return true;
  }
  return p[0] < 0xed;
}

// The encodings of the points of order 1, 2, 4 and 8 (the sign bit ignored), as libsodium
// lists them: a public key among them verifies signatures of messages it never signed.
bool HasSmallOrder(const std::uint8_t* p) {
  static constexpr std::array<std::array<std::uint8_t, 32>, 7> kSmallOrder = {{
      {0},
      {1},
      {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
       0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05},
      {0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
       0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a},
      {0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
      {0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
      {0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
  }};
  for (const auto& point : kSmallOrder) {
    bool same = (p[31] & 0x7f) == point[31];
    for (std::size_t i = 0; i < 31 && same; ++i) same = p[i] == point[i];
    if (same) return true;
  }
  return false;
}

}  // namespace

bool Verify(const PublicKey& key, std::string_view message, std::string_view signature) {
  if (signature.size() != CryptoPP::ed25519Verifier::SIGNATURE_LENGTH) return false;
  // RFC 8032's strict checks, before Crypto++'s equation (which accepts S >= L): one
  // statement has one valid signature encoding, as openssl verifies.
  const auto* sig = reinterpret_cast<const std::uint8_t*>(signature.data());
  if (!ScalarIsReduced(sig + 32) || !PointIsCanonical(sig) || !PointIsCanonical(key.bytes.data()) ||
      HasSmallOrder(key.bytes.data()) || HasSmallOrder(sig)) {
    return false;
  }
  CryptoPP::ed25519Verifier verifier(key.bytes.data());
  return verifier.VerifyMessage(reinterpret_cast<const CryptoPP::byte*>(message.data()), message.size(),
                                reinterpret_cast<const CryptoPP::byte*>(signature.data()), signature.size());
}

}  // namespace ckpt::attest
