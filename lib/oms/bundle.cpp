#include "lib/oms/bundle.h"

#include "lib/attest/dsse.h"
#include "lib/core/base64.h"
#include "lib/core/text.h"
#include "lib/json/strict_parser.h"

namespace ckpt::oms {
namespace {

// Chains carry a leaf and its intermediates: a handful, never an unbounded list to parse.
constexpr std::size_t kMaxCertificates = 16;

}  // namespace

std::optional<Bundle> ParseBundle(std::string_view text, const FileReporter& report) {
  auto invalid = [&](std::uint64_t at, const std::string& why) -> std::optional<Bundle> {
    report(Diag::kOmsBundleInvalid, at, "The signature file is not a Sigstore bundle: " + why);
    return std::nullopt;
  };
  if (text.size() > kMaxBundleBytes) return invalid(0, "it is larger than 64 MiB.");
  if (text.empty()) return invalid(0, "it is empty.");
  auto document = std::make_shared<json::Document>(std::string(text));
  json::Document& doc = *document;
  if (auto error = json::Parse(doc)) return invalid(error->offset, error->message + ".");
  if (!doc.duplicates.empty()) {
    return invalid(doc.duplicates.front().second_offset,
                   "the key " + QuoteForMessage(doc.duplicates.front().key) + " appears twice in one object.");
  }
  const json::Value root = doc.root();
  if (!root.is(json::Type::kObject)) return invalid(root.offset(), "it is " + root.Describe() + ", not an object.");
  Bundle bundle;
  auto string_member = [](const json::Value& object, std::string_view key) -> std::optional<json::Value> {
    auto v = object.Find(key);
    return v && v->is(json::Type::kString) ? v : std::nullopt;
  };
  auto decode = [](const json::Value& v) { return Base64Decode(v.String(), Base64Alphabet::kStandard); };

  auto media = root.Find("mediaType");
  if (!media || !media->is(json::Type::kString)) return invalid(root.offset(), "it has no string mediaType.");
  bundle.media_type = media->String();

  auto material = root.Find("verificationMaterial");
  if (!material || !material->is(json::Type::kObject)) {
    return invalid(material ? material->offset() : root.offset(), "it has no verificationMaterial object.");
  }
  auto envelope = root.Find("dsseEnvelope");
  if (!envelope || !envelope->is(json::Type::kObject)) {
    return invalid(envelope ? envelope->offset() : root.offset(), "it has no dsseEnvelope object.");
  }

  int kinds = 0;
  for (std::string_view member : {"publicKey", "x509CertificateChain", "certificate"})
    kinds += material->Find(member) ? 1 : 0;
  if (kinds > 1) {
    return invalid(material->offset(),
                   "verificationMaterial holds more than one of publicKey, x509CertificateChain and certificate.");
  }
  if (auto key = material->Find("publicKey")) {
    if (!key->is(json::Type::kObject)) return invalid(key->offset(), "publicKey is not an object.");
    bundle.material = Material::kPublicKey;
    if (auto hint = key->Find("hint")) {
      if (!hint->is(json::Type::kString)) return invalid(hint->offset(), "publicKey.hint is not a string.");
      bundle.key_hint = hint->String();
    }
    if (auto raw = key->Find("rawBytes")) {
      auto bytes = raw->is(json::Type::kString) ? decode(*raw) : std::nullopt;
      if (!bytes) return invalid(raw->offset(), "publicKey.rawBytes is not base64.");
      bundle.key_raw_bytes = std::move(*bytes);
    }
  } else if (auto chain = material->Find("x509CertificateChain")) {
    auto certificates = chain->is(json::Type::kObject) ? chain->Find("certificates") : std::nullopt;
    if (!certificates || !certificates->is(json::Type::kArray)) {
      return invalid(chain->offset(), "x509CertificateChain has no certificates array.");
    }
    bundle.material = Material::kCertificateChain;
    for (const json::Value item : certificates->Items()) {
      if (bundle.certificates.size() == kMaxCertificates) {
        return invalid(item.offset(),
                       "the chain holds more than " + std::to_string(kMaxCertificates) + " certificates.");
      }
      auto raw = item.is(json::Type::kObject) ? string_member(item, "rawBytes") : std::nullopt;
      auto bytes = raw ? decode(*raw) : std::nullopt;
      if (!bytes || bytes->empty() || (*bytes)[0] != '\x30') {
        return invalid(item.offset(), "a certificate of the chain is not base64 DER in rawBytes.");
      }
      bundle.certificates.push_back(std::move(*bytes));
    }
  } else if (auto certificate = material->Find("certificate")) {
    auto raw = certificate->is(json::Type::kObject) ? string_member(*certificate, "rawBytes") : std::nullopt;
    auto bytes = raw ? decode(*raw) : std::nullopt;
    if (!bytes || bytes->empty() || (*bytes)[0] != '\x30') {
      return invalid(certificate->offset(), "certificate is not base64 DER in rawBytes.");
    }
    bundle.material = Material::kCertificate;
    bundle.certificates.push_back(std::move(*bytes));
  }
  if (auto entries = material->Find("tlogEntries")) {
    if (!entries->is(json::Type::kArray)) return invalid(entries->offset(), "tlogEntries is not an array.");
    bundle.tlog_entries = *entries;
  }

  auto type = envelope->Find("payloadType");
  if (!type || !type->is(json::Type::kString)) return invalid(envelope->offset(), "the envelope has no payloadType.");
  bundle.payload_type = type->String();
  auto payload = envelope->Find("payload");
  auto payload_bytes = payload && payload->is(json::Type::kString) ? decode(*payload) : std::nullopt;
  if (!payload_bytes) {
    return invalid(payload ? payload->offset() : envelope->offset(), "the envelope's payload is not base64.");
  }
  bundle.payload = std::move(*payload_bytes);
  bundle.payload_offset = payload->offset();
  auto signatures = envelope->Find("signatures");
  if (!signatures || !signatures->is(json::Type::kArray)) {
    return invalid(envelope->offset(), "the envelope has no signatures array.");
  }
  if (signatures->Size() != 1) {
    return invalid(signatures->offset(), "the envelope holds " + std::to_string(signatures->Size()) +
                                             " signatures; a model signature has exactly one.");
  }
  const json::Value signature = *signatures->Items().begin();
  auto sig = signature.is(json::Type::kObject) ? string_member(signature, "sig") : std::nullopt;
  auto sig_bytes = sig ? decode(*sig) : std::nullopt;
  if (!sig_bytes || sig_bytes->empty()) return invalid(signature.offset(), "the signature's sig is not base64.");
  if (auto keyid = signature.Find("keyid"); keyid && !keyid->is(json::Type::kString) && !keyid->is(json::Type::kNull)) {
    return invalid(keyid->offset(), "the signature's keyid is neither a string nor null.");
  }
  bundle.signature = std::move(*sig_bytes);
  bundle.signature_offset = sig->offset();
  bundle.document = std::move(document);
  return bundle;
}

std::string StandardPae(std::string_view payload_type, std::string_view payload) {
  return attest::PreAuthEncoding(payload_type, payload);
}

std::string PythonBytesRepr(std::string_view bytes) {
  const bool has_single = bytes.find('\'') != std::string_view::npos;
  const bool has_double = bytes.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "b";
  out.push_back(quote);
  for (char c : bytes) {
    const auto b = static_cast<std::uint8_t>(c);
    if (c == quote || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (b < 0x20 || b >= 0x7f) {
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back(quote);
  return out;
}

std::string LegacyPae(std::string_view payload_type, std::string_view payload) {
  std::string out = "DSSEV1 ";
  out.append(std::to_string(payload_type.size())).append(" ").append(payload_type).append(" ");
  out.append(std::to_string(payload.size())).append(" ").append(PythonBytesRepr(payload));
  return out;
}

}  // namespace ckpt::oms
