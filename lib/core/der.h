// A strict DER reader for the few structures keys and signatures need (SubjectPublicKeyInfo,
// PKCS#8, SEC1, ECDSA-Sig-Value, a Fulcio certificate's extensions): definite minimal lengths
// only, every length checked against what is left. Certificate paths are OpenSSL's business
// (lib/oms/x509_path.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::der {

inline constexpr std::uint8_t kInteger = 0x02;
inline constexpr std::uint8_t kBitString = 0x03;
inline constexpr std::uint8_t kOctetString = 0x04;
inline constexpr std::uint8_t kNull = 0x05;
inline constexpr std::uint8_t kOid = 0x06;
inline constexpr std::uint8_t kSequence = 0x30;
inline constexpr std::uint8_t kContext0 = 0xa0;  ///< [0] constructed
inline constexpr std::uint8_t kContext1 = 0xa1;  ///< [1] constructed
inline constexpr std::uint8_t kContext3 = 0xa3;  ///< [3] constructed
inline constexpr std::uint8_t kBoolean = 0x01;
inline constexpr std::uint8_t kUtf8String = 0x0c;

/// Reads TLVs off the front of a byte string.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}

  [[nodiscard]] bool empty() const { return rest_.empty(); }
  [[nodiscard]] std::optional<std::uint8_t> PeekTag() const {
    if (rest_.empty()) return std::nullopt;
    return static_cast<std::uint8_t>(rest_.front());
  }

  /// The contents of the next element when its tag is `tag`; nullopt (nothing consumed)
  /// otherwise or when it is not minimal DER.
  std::optional<std::string_view> Read(std::uint8_t tag) {
    if (rest_.size() < 2 || static_cast<std::uint8_t>(rest_[0]) != tag) return std::nullopt;
    std::size_t length = static_cast<std::uint8_t>(rest_[1]);
    std::size_t header = 2;
    if (length & 0x80) {
      const std::size_t octets = length & 0x7f;
      // At most 4 length octets (no key or signature is anywhere near 4 GiB); none is indefinite.
      if (octets == 0 || octets > 4 || rest_.size() < 2 + octets) return std::nullopt;
      length = 0;
      for (std::size_t i = 0; i < octets; ++i) length = (length << 8) | static_cast<std::uint8_t>(rest_[2 + i]);
      // Minimal: long form only from 128, and no leading zero octet.
      if (length < 0x80 || static_cast<std::uint8_t>(rest_[2]) == 0) return std::nullopt;
      header += octets;
    }
    if (length > rest_.size() - header) return std::nullopt;
    std::string_view contents = rest_.substr(header, length);
    rest_.remove_prefix(header + length);
    return contents;
  }

  /// The whole next element (tag, length and contents) when its tag is `tag`: for
  /// structures that are signed or hashed as they are written.
  std::optional<std::string_view> ReadElement(std::uint8_t tag) {
    const std::string_view before = rest_;
    if (!Read(tag)) return std::nullopt;
    return before.substr(0, before.size() - rest_.size());
  }

  /// The whole next element whatever its (one-octet) tag.
  std::optional<std::string_view> ReadAnyElement() {
    auto tag = PeekTag();
    if (!tag || (*tag & 0x1f) == 0x1f) return std::nullopt;  // high tag numbers: none in X.509
    return ReadElement(*tag);
  }

  /// What is left unread.
  [[nodiscard]] std::string_view rest() const { return rest_; }

  /// A non-negative INTEGER's magnitude, big-endian without the sign octet; nullopt for a
  /// negative or non-minimal one.
  std::optional<std::string_view> ReadUnsignedInteger() {
    Reader copy = *this;
    auto contents = copy.Read(kInteger);
    if (!contents || contents->empty()) return std::nullopt;
    const auto first = static_cast<std::uint8_t>((*contents)[0]);
    if (first & 0x80) return std::nullopt;  // negative
    if (contents->size() > 1 && first == 0 && !(static_cast<std::uint8_t>((*contents)[1]) & 0x80)) {
      return std::nullopt;  // a redundant leading zero
    }
    *this = copy;
    std::string_view magnitude = *contents;
    if (magnitude.size() > 1 && first == 0) magnitude.remove_prefix(1);
    return magnitude;
  }

 private:
  std::string_view rest_;
};

/// One TLV with a short or long length (contents below 4 GiB).
inline std::string Encode(std::uint8_t tag, std::string_view contents) {
  std::string out(1, static_cast<char>(tag));
  const std::size_t n = contents.size();
  if (n < 0x80) {
    out.push_back(static_cast<char>(n));
  } else {
    std::string length;
    for (std::size_t v = n; v != 0; v >>= 8) length.insert(length.begin(), static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>(0x80 | length.size()));
    out += length;
  }
  out.append(contents);
  return out;
}

/// A non-negative INTEGER from a big-endian magnitude (leading zeros dropped, a sign octet
/// added when needed).
inline std::string EncodeUnsignedInteger(std::string_view magnitude) {
  while (magnitude.size() > 1 && magnitude.front() == '\0') magnitude.remove_prefix(1);
  std::string contents;
  if (magnitude.empty() || (static_cast<std::uint8_t>(magnitude.front()) & 0x80)) contents.push_back('\0');
  contents.append(magnitude.empty() ? std::string_view("") : magnitude);
  if (contents.empty()) contents.push_back('\0');
  return Encode(kInteger, contents);
}

}  // namespace ckpt::der
