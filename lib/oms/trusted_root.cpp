#include "lib/oms/trusted_root.h"

#include <ctime>

#include "lib/core/base64.h"
#include "lib/core/text.h"
#include "lib/io/small_file.h"
#include "lib/json/strict_parser.h"
#include "lib/oms/json_fields.h"

namespace ckpt::oms {
namespace {

constexpr std::size_t kMaxRootBytes = std::size_t{4} << 20;
// The public-good root lists a handful of each; far more is not a root anyone maintains.
constexpr std::size_t kMaxEntries = 256;
constexpr std::size_t kMaxChain = 16;

using Error = std::string;

std::optional<int> Digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::optional<ValidityWindow> ReadWindow(const json::Value& entry, const std::string& what, Error& error) {
  auto window = entry.Find("validFor");
  if (!window || !window->is(json::Type::kObject)) {
    error = what + " has no validFor object";
    return std::nullopt;
  }
  ValidityWindow out;
  auto start = window->FindString("start");
  auto start_ms = start ? ParseRfc3339Millis(*start) : std::nullopt;
  if (!start_ms) {
    error = what + " has no RFC 3339 validFor.start";
    return std::nullopt;
  }
  out.start_ms = *start_ms;
  if (auto end = window->Find("end")) {
    auto end_ms = end->is(json::Type::kString) ? ParseRfc3339Millis(end->String()) : std::nullopt;
    if (!end_ms) {
      error = what + "'s validFor.end is not an RFC 3339 time";
      return std::nullopt;
    }
    out.end_ms = *end_ms;
  }
  return out;
}

bool ReadLogs(const json::Value& root, std::string_view member, std::vector<LogKey>& out, Error& error) {
  auto logs = root.Find(member);
  if (!logs) return true;
  if (!logs->is(json::Type::kArray)) {
    error = std::string(member) + " is not an array";
    return false;
  }
  for (const json::Value entry : logs->Items()) {
    const std::string what = std::string(member) + "[" + std::to_string(out.size()) + "]";
    if (out.size() == kMaxEntries) {
      error = std::string(member) + " lists more than " + std::to_string(kMaxEntries) + " logs";
      return false;
    }
    if (!entry.is(json::Type::kObject)) {
      error = what + " is not an object";
      return false;
    }
    LogKey log;
    log.base_url = entry.FindString("baseUrl").value_or("");
    auto log_id = entry.Find("logId");
    auto key_id = log_id && log_id->is(json::Type::kObject) ? Base64Member(*log_id, "keyId") : std::nullopt;
    if (!key_id || key_id->empty()) {
      error = what + " has no base64 logId.keyId";
      return false;
    }
    log.key_id = std::move(*key_id);
    auto public_key = entry.Find("publicKey");
    if (!public_key || !public_key->is(json::Type::kObject)) {
      error = what + " has no publicKey object";
      return false;
    }
    auto raw = Base64Member(*public_key, "rawBytes");
    if (!raw) {
      error = what + " has no base64 publicKey.rawBytes";
      return false;
    }
    auto window = ReadWindow(*public_key, what + ".publicKey", error);
    if (!window) return false;
    log.valid_for = *window;
    auto key = PublicKeyFromSpki(*raw);
    if (auto* parsed = std::get_if<PublicKey>(&key)) {
      log.key = std::move(*parsed);
    } else {
      // Kept, so that an entry from this log is refused for its key rather than as unknown.
      log.unsupported = std::get<KeyError>(key).message;
    }
    out.push_back(std::move(log));
  }
  return true;
}

bool ReadAuthorities(const json::Value& root, std::vector<CertificateAuthority>& out, Error& error) {
  auto authorities = root.Find("certificateAuthorities");
  if (!authorities) return true;
  if (!authorities->is(json::Type::kArray)) {
    error = "certificateAuthorities is not an array";
    return false;
  }
  for (const json::Value entry : authorities->Items()) {
    const std::string what = "certificateAuthorities[" + std::to_string(out.size()) + "]";
    if (out.size() == kMaxEntries) {
      error = "certificateAuthorities lists more than " + std::to_string(kMaxEntries) + " entries";
      return false;
    }
    if (!entry.is(json::Type::kObject)) {
      error = what + " is not an object";
      return false;
    }
    CertificateAuthority ca;
    ca.uri = entry.FindString("uri").value_or("");
    auto chain = entry.Find("certChain");
    auto certificates = chain && chain->is(json::Type::kObject) ? chain->Find("certificates") : std::nullopt;
    if (!certificates || !certificates->is(json::Type::kArray) || certificates->Size() == 0) {
      error = what + " has no certChain.certificates";
      return false;
    }
    for (const json::Value certificate : certificates->Items()) {
      auto der = certificate.is(json::Type::kObject) ? Base64Member(certificate, "rawBytes") : std::nullopt;
      if (!der || der->empty() || (*der)[0] != '\x30' || ca.chain.size() == kMaxChain) {
        error = what + " has a certificate that is not base64 DER in rawBytes";
        return false;
      }
      ca.chain.push_back(std::move(*der));
    }
    auto window = ReadWindow(entry, what, error);
    if (!window) return false;
    ca.valid_for = *window;
    out.push_back(std::move(ca));
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> ParseRfc3339Millis(std::string_view text) {
  auto year = Digits(text, 0, 4);
  auto month = Digits(text, 5, 2);
  auto day = Digits(text, 8, 2);
  auto hour = Digits(text, 11, 2);
  auto minute = Digits(text, 14, 2);
  auto second = Digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t millis = 0;
  if (at < text.size() && text[at] == '.') {
    std::size_t digits = 0;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
      if (digits < 3) millis = millis * 10 + (text[at] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  std::int64_t offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    auto offset_hours = Digits(text, at + 1, 2);
    auto offset_minutes = Digits(text, at + 4, 2);
    if (!offset_hours || !offset_minutes || text[at + 3] != ':' || *offset_hours > 23 || *offset_minutes > 59) {
      return std::nullopt;
    }
    offset_seconds =
        (text[at] == '+' ? 1 : -1) * (std::int64_t{*offset_hours} * 3600 + std::int64_t{*offset_minutes} * 60);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  const std::time_t seconds = timegm(&tm);
  // timegm normalises 31 February into March: a day the month does not have is refused.
  if (tm.tm_mday != *day) return std::nullopt;
  return (static_cast<std::int64_t>(seconds) - offset_seconds) * 1000 + millis;
}

std::variant<TrustedRoot, std::string> ParseTrustedRoot(std::string_view text) {
  json::Document doc{std::string(text)};
  if (auto error = json::Parse(doc)) {
    return "it is not JSON (" + error->message + " at byte " + std::to_string(error->offset) + ")";
  }
  if (!doc.duplicates.empty()) {
    return "the key " + QuoteForMessage(doc.duplicates.front().key) + " appears twice in one object";
  }
  json::Value root = doc.root();
  if (!root.is(json::Type::kObject)) return std::string("it is not a JSON object");
  auto media_type = root.FindString("mediaType");
  if (media_type && *media_type == kClientTrustConfigMediaType) {
    auto inner = root.Find("trustedRoot");
    if (!inner || !inner->is(json::Type::kObject))
      return std::string("the ClientTrustConfig has no trustedRoot object");
    root = *inner;
    media_type = root.FindString("mediaType");
  }
  if (!media_type || *media_type != kTrustedRootMediaType) {
    return "its mediaType is " + (media_type ? QuoteForMessage(*media_type, 120) : std::string("absent")) + ", not " +
           std::string(kTrustedRootMediaType) + " (or a ClientTrustConfig holding one)";
  }
  TrustedRoot out;
  Error error;
  if (!ReadLogs(root, "tlogs", out.tlogs, error) || !ReadLogs(root, "ctlogs", out.ctlogs, error) ||
      !ReadAuthorities(root, out.certificate_authorities, error)) {
    return error;
  }
  if (out.tlogs.empty()) return std::string("it lists no transparency log (tlogs)");
  if (out.certificate_authorities.empty()) return std::string("it lists no certificate authority");
  if (out.ctlogs.empty()) return std::string("it lists no certificate transparency log (ctlogs)");
  return out;
}

std::variant<TrustedRoot, std::string> LoadTrustedRootFile(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxRootBytes);
  if (!file.ok()) return file.error;
  return ParseTrustedRoot(file.text);
}

}  // namespace ckpt::oms
