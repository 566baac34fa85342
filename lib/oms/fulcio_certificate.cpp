#include "lib/oms/fulcio_certificate.h"

#include "lib/core/der.h"
#include "lib/core/text.h"

namespace ckpt::oms {
namespace {

using namespace std::string_view_literals;

constexpr std::string_view kSubjectAltNameOid = "\x55\x1d\x11"sv;                            // 2.5.29.17
constexpr std::string_view kSctListOid = "\x2b\x06\x01\x04\x01\xd6\x79\x02\x04\x02"sv;       // 1.3.6.1.4.1.11129.2.4.2
constexpr std::string_view kOidcIssuerV2Oid = "\x2b\x06\x01\x04\x01\x83\xbf\x30\x01\x08"sv;  // 1.3.6.1.4.1.57264.1.8
constexpr std::string_view kOidcIssuerLegacyOid =
    "\x2b\x06\x01\x04\x01\x83\xbf\x30\x01\x01"sv;  // 1.3.6.1.4.1.57264.1.1
constexpr std::uint8_t kRfc822NameTag = 0x81;      // [1] IMPLICIT IA5String
constexpr std::uint8_t kUriTag = 0x86;             // [6] IMPLICIT IA5String
// A certificate names a handful; a list of thousands is an attack on the verifier.
constexpr std::size_t kMaxNames = 64;
constexpr std::size_t kMaxTimestamps = 64;

// The TBSCertificate split where the extensions begin.
struct TbsParts {
  std::string_view before_extensions;  ///< every field up to the [3] extensions, as written
  std::string_view extensions;         ///< the SEQUENCE OF Extension's contents
};

std::optional<TbsParts> SplitTbs(std::string_view certificate) {
  der::Reader outer(certificate);
  auto body = outer.Read(der::kSequence);
  if (!body || !outer.empty()) return std::nullopt;
  der::Reader fields(*body);
  auto tbs = fields.Read(der::kSequence);
  if (!tbs) return std::nullopt;
  der::Reader tbs_fields(*tbs);
  // version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, and
  // optionally issuerUniqueID [1] and subjectUniqueID [2]: kept byte for byte.
  if (!tbs_fields.Read(der::kContext0)) return std::nullopt;  // v3 only: extensions need it
  for (int i = 0; i < 6; ++i) {
    if (!tbs_fields.ReadAnyElement()) return std::nullopt;
  }
  for (std::uint8_t unique_id : {std::uint8_t{0x81}, std::uint8_t{0x82}}) {
    if (tbs_fields.PeekTag() == unique_id && !tbs_fields.ReadElement(unique_id)) return std::nullopt;
  }
  TbsParts parts;
  parts.before_extensions = tbs->substr(0, tbs->size() - tbs_fields.rest().size());
  if (tbs_fields.empty()) return parts;
  auto explicit_extensions = tbs_fields.Read(der::kContext3);
  if (!explicit_extensions || !tbs_fields.empty()) return std::nullopt;
  der::Reader wrapper(*explicit_extensions);
  auto extensions = wrapper.Read(der::kSequence);
  if (!extensions || !wrapper.empty()) return std::nullopt;
  parts.extensions = *extensions;
  return parts;
}

std::optional<std::vector<CertificateExtension>> ReadExtensions(std::string_view sequence_contents) {
  std::vector<CertificateExtension> out;
  der::Reader list(sequence_contents);
  while (!list.empty()) {
    auto whole = list.ReadElement(der::kSequence);
    if (!whole) return std::nullopt;
    der::Reader element(*whole);
    der::Reader fields(*element.Read(der::kSequence));
    CertificateExtension extension;
    extension.whole = *whole;
    auto oid = fields.Read(der::kOid);
    if (!oid) return std::nullopt;
    extension.oid = *oid;
    if (fields.PeekTag() == der::kBoolean) {
      auto flag = fields.Read(der::kBoolean);
      if (!flag || flag->size() != 1) return std::nullopt;
      extension.critical = (*flag)[0] != '\0';
    }
    auto value = fields.Read(der::kOctetString);
    if (!value || !fields.empty()) return std::nullopt;
    extension.value = *value;
    out.push_back(extension);
  }
  return out;
}

// Big-endian unsigned integers of the TLS encoding.
class TlsReader {
 public:
  explicit TlsReader(std::string_view bytes) : rest_(bytes) {}
  [[nodiscard]] bool empty() const { return rest_.empty(); }
  std::optional<std::uint64_t> Number(std::size_t octets) {
    if (rest_.size() < octets) return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < octets; ++i) value = (value << 8) | static_cast<std::uint8_t>(rest_[i]);
    rest_.remove_prefix(octets);
    return value;
  }
  std::optional<std::string_view> Bytes(std::size_t count) {
    if (rest_.size() < count) return std::nullopt;
    std::string_view out = rest_.substr(0, count);
    rest_.remove_prefix(count);
    return out;
  }
  /// opaque<..> with a `length_octets`-byte length.
  std::optional<std::string_view> Vector(std::size_t length_octets) {
    auto length = Number(length_octets);
    if (!length) return std::nullopt;
    return Bytes(static_cast<std::size_t>(*length));
  }

 private:
  std::string_view rest_;
};

void AppendNumber(std::string& out, std::uint64_t value, std::size_t octets) {
  for (std::size_t i = octets; i-- > 0;) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

std::optional<std::vector<CertificateExtension>> CertificateExtensions(std::string_view certificate) {
  auto parts = SplitTbs(certificate);
  if (!parts) return std::nullopt;
  return ReadExtensions(parts->extensions);
}

std::variant<CertificateIdentity, std::string> IdentityOf(std::string_view certificate) {
  auto extensions = CertificateExtensions(certificate);
  if (!extensions) return std::string("the certificate is not DER X.509 v3");
  CertificateIdentity identity;
  std::optional<std::string> legacy_issuer;
  for (const CertificateExtension& extension : *extensions) {
    if (extension.oid == kSubjectAltNameOid) {
      der::Reader outer(extension.value);
      auto names = outer.Read(der::kSequence);
      if (!names || !outer.empty()) return std::string("its subjectAltName is not a GeneralNames sequence");
      der::Reader list(*names);
      while (!list.empty()) {
        if (identity.emails.size() + identity.uris.size() == kMaxNames) {
          return "its subjectAltName holds more than " + std::to_string(kMaxNames) + " names";
        }
        const std::uint8_t tag = list.PeekTag().value_or(0);
        if (tag == kRfc822NameTag || tag == kUriTag) {
          auto name = list.Read(tag);
          if (!name) return std::string("its subjectAltName is not DER");
          (tag == kRfc822NameTag ? identity.emails : identity.uris).emplace_back(*name);
        } else if (!list.ReadAnyElement()) {
          return std::string("its subjectAltName is not DER");
        }
      }
    } else if (extension.oid == kOidcIssuerV2Oid) {
      der::Reader value(extension.value);
      auto text = value.Read(der::kUtf8String);
      if (!text || !value.empty()) return std::string("its OIDC issuer (1.3.6.1.4.1.57264.1.8) is not a UTF8String");
      identity.oidc_issuer = std::string(*text);
    } else if (extension.oid == kOidcIssuerLegacyOid) {
      legacy_issuer = std::string(extension.value);  // raw bytes, as Fulcio wrote it before .1.8
    }
  }
  if (!identity.oidc_issuer) identity.oidc_issuer = std::move(legacy_issuer);
  return identity;
}

std::variant<EmbeddedTimestamps, std::string> EmbeddedTimestampsOf(std::string_view certificate) {
  auto parts = SplitTbs(certificate);
  auto extensions = parts ? ReadExtensions(parts->extensions) : std::nullopt;
  if (!extensions) return std::string("the certificate is not DER X.509 v3");
  EmbeddedTimestamps out;
  std::string kept;
  std::optional<std::string_view> list_bytes;
  for (const CertificateExtension& extension : *extensions) {
    if (extension.oid == kSctListOid) {
      if (list_bytes) return std::string("it carries two SCT list extensions");
      der::Reader value(extension.value);
      list_bytes = value.Read(der::kOctetString);
      if (!list_bytes || !value.empty()) return std::string("its SCT list extension is not an OCTET STRING");
    } else {
      kept.append(extension.whole);
    }
  }
  if (!list_bytes) return std::string("it has no embedded SCT (extension 1.3.6.1.4.1.11129.2.4.2)");
  // The precertificate the log saw: the same TBS without the SCT list (RFC 6962 3.2).
  std::string tbs_contents(parts->before_extensions);
  if (!kept.empty()) tbs_contents += der::Encode(der::kContext3, der::Encode(der::kSequence, kept));
  out.precertificate_tbs = der::Encode(der::kSequence, tbs_contents);

  TlsReader outer(*list_bytes);
  auto list = outer.Vector(2);
  if (!list || !outer.empty()) return std::string("its SCT list's length is wrong");
  TlsReader items(*list);
  while (!items.empty()) {
    if (out.timestamps.size() == kMaxTimestamps) return std::string("its SCT list holds too many timestamps");
    auto item = items.Vector(2);
    if (!item) return std::string("an SCT's length runs past the list");
    TlsReader sct(*item);
    auto version = sct.Number(1);
    if (!version) return std::string("an SCT is empty");
    if (*version != 0) continue;  // only v1 is defined: others are not this verifier's to read
    SignedTimestamp timestamp;
    auto log_id = sct.Bytes(32);
    auto time = sct.Number(8);
    auto sct_extensions = sct.Vector(2);
    auto hash = sct.Number(1);
    auto algorithm = sct.Number(1);
    auto signature = sct.Vector(2);
    if (!log_id || !time || !sct_extensions || !hash || !algorithm || !signature || !sct.empty()) {
      return std::string("an SCT is truncated or has bytes after its signature");
    }
    timestamp.log_id = std::string(*log_id);
    timestamp.timestamp_ms = *time;
    timestamp.extensions = std::string(*sct_extensions);
    timestamp.hash_algorithm = static_cast<std::uint8_t>(*hash);
    timestamp.signature_algorithm = static_cast<std::uint8_t>(*algorithm);
    timestamp.signature = std::string(*signature);
    out.timestamps.push_back(std::move(timestamp));
  }
  if (out.timestamps.empty()) return std::string("its SCT list holds no v1 timestamp");
  return out;
}

std::string PrecertificateSignedData(const SignedTimestamp& sct, std::string_view issuer_key_hash,
                                     std::string_view precertificate_tbs) {
  std::string out;
  out.push_back('\0');  // sct_version v1
  out.push_back('\0');  // signature_type certificate_timestamp
  AppendNumber(out, sct.timestamp_ms, 8);
  AppendNumber(out, 1, 2);  // entry_type precert_entry
  out.append(issuer_key_hash);
  AppendNumber(out, precertificate_tbs.size(), 3);
  out.append(precertificate_tbs);
  AppendNumber(out, sct.extensions.size(), 2);
  out.append(sct.extensions);
  return out;
}

namespace {
constexpr std::size_t kMaxIdentityBytes = 8192;  // a SAN longer than any workflow path
}  // namespace

std::optional<std::string> IdentityPatternError(std::string_view pattern) {
  if (!pattern.starts_with("https://")) return "it must start with https:// (email identities match exactly)";
  const std::size_t wildcard = pattern.find('*');
  if (wildcard == std::string_view::npos) return std::nullopt;
  std::size_t slashes = 0;
  for (std::size_t i = 0; i < wildcard; ++i) slashes += pattern[i] == '/' ? 1U : 0U;
  if (slashes < 5) {
    return "a wildcard comes before the host, owner and repository are named (https://HOST/OWNER/REPO/...)";
  }
  if (pattern.find("***") != std::string_view::npos) return "it has '***'; write '*' or '**'";
  return std::nullopt;
}

bool IdentityMatchesPattern(std::string_view pattern, std::string_view identity) {
  // matched[j]: the pattern read so far matches identity[0, j). One row per pattern token, so
  // the cost is pattern x identity whatever the certificate holds (never backtracking).
  if (identity.size() > kMaxIdentityBytes) return false;
  std::vector<char> matched(identity.size() + 1, 0);
  matched[0] = 1;
  for (std::size_t p = 0; p < pattern.size();) {
    std::vector<char> next(identity.size() + 1, 0);
    if (pattern[p] == '*') {
      const bool any = p + 1 < pattern.size() && pattern[p + 1] == '*';
      // One or more characters: from each matched end, extend over what the wildcard admits.
      for (std::size_t j = 0; j < identity.size(); ++j) {
        if (!matched[j] && !next[j]) continue;
        if (!any && identity[j] == '/') continue;
        next[j + 1] = 1;
      }
      p += any ? 2 : 1;
    } else {
      for (std::size_t j = 0; j < identity.size(); ++j) {
        if (matched[j] && identity[j] == pattern[p]) next[j + 1] = 1;
      }
      ++p;
    }
    matched.swap(next);
  }
  return matched[identity.size()] != 0;
}

}  // namespace ckpt::oms
