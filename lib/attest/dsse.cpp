#include "lib/attest/dsse.h"

#include <vector>

#include "lib/core/base64.h"
#include "lib/core/text.h"
#include "lib/json/strict_parser.h"

namespace ckpt::attest {
namespace {

constexpr std::size_t kMaxSignatures = 16;

struct Signature {
  std::optional<std::string> keyid;
  std::string sig;  // decoded
  std::uint64_t offset = 0;
};

struct Envelope {
  std::string payload_type;
  std::string payload;  // decoded
  std::vector<Signature> signatures;
};

// The envelope's fields, or a message saying what is wrong (with the offset it is at).
std::optional<Envelope> ParseEnvelope(std::string_view text, const FileReporter& report) {
  auto invalid = [&](std::uint64_t at, const std::string& why) {
    report(Diag::kAttestEnvelopeInvalid, at, "Not a DSSE envelope: " + why);
    return std::nullopt;
  };
  if (text.size() > kMaxEnvelopeBytes) return invalid(0, "the file is larger than 64 MiB.");
  json::Document doc{std::string(text)};
  if (auto error = json::Parse(doc)) return invalid(error->offset, error->message + ".");
  if (!doc.duplicates.empty()) {
    return invalid(doc.duplicates.front().second_offset,
                   "the key " + QuoteForMessage(doc.duplicates.front().key) + " appears twice in one object.");
  }
  const json::Value root = doc.root();
  if (!root.is(json::Type::kObject))
    return invalid(root.offset(), "the file is " + root.Describe() + ", not an object.");
  Envelope envelope;
  bool has_type = false;
  bool has_payload = false;
  bool has_signatures = false;
  for (const json::Member& m : root.Members()) {
    if (m.key == "payloadType") {
      if (!m.value.is(json::Type::kString)) return invalid(m.value.offset(), "payloadType is not a string.");
      envelope.payload_type = m.value.String();
      has_type = true;
    } else if (m.key == "payload") {
      if (!m.value.is(json::Type::kString)) return invalid(m.value.offset(), "payload is not a string.");
      auto decoded = Base64Decode(m.value.String(), Base64Alphabet::kStandardOrUrl);
      if (!decoded) return invalid(m.value.offset(), "payload is not base64.");
      envelope.payload = std::move(*decoded);
      has_payload = true;
    } else if (m.key == "signatures") {
      if (!m.value.is(json::Type::kArray)) return invalid(m.value.offset(), "signatures is not an array.");
      for (const json::Value item : m.value.Items()) {
        // Each signature may cost a verification: a few signers, never an unbounded list.
        if (envelope.signatures.size() == kMaxSignatures) {
          return invalid(item.offset(), "more than " + std::to_string(kMaxSignatures) + " signatures.");
        }
        if (!item.is(json::Type::kObject)) return invalid(item.offset(), "a signature is not an object.");
        Signature s;
        s.offset = item.offset();
        bool has_sig = false;
        for (const json::Member& f : item.Members()) {
          if (f.key == "keyid") {
            if (!f.value.is(json::Type::kString)) return invalid(f.value.offset(), "a keyid is not a string.");
            s.keyid = f.value.String();
          } else if (f.key == "sig") {
            if (!f.value.is(json::Type::kString)) return invalid(f.value.offset(), "a sig is not a string.");
            auto decoded = Base64Decode(f.value.String(), Base64Alphabet::kStandardOrUrl);
            if (!decoded) return invalid(f.value.offset(), "a sig is not base64.");
            s.sig = std::move(*decoded);
            has_sig = true;
          } else {
            return invalid(f.key_offset, "a signature has the unknown field " + QuoteForMessage(f.key) + ".");
          }
        }
        if (!has_sig) return invalid(item.offset(), "a signature has no sig.");
        envelope.signatures.push_back(std::move(s));
      }
      has_signatures = true;
    } else {
      return invalid(m.key_offset, "the unknown field " + QuoteForMessage(m.key) + ".");
    }
  }
  if (!has_type || !has_payload || !has_signatures) {
    return invalid(root.offset(), std::string("the field ") +
                                      (!has_type      ? "payloadType"
                                       : !has_payload ? "payload"
                                                      : "signatures") +
                                      " is missing.");
  }
  if (envelope.signatures.empty()) return invalid(root.offset(), "signatures is empty.");
  return envelope;
}

}  // namespace

std::string PreAuthEncoding(std::string_view payload_type, std::string_view payload) {
  std::string pae = "DSSEv1 " + std::to_string(payload_type.size()) + " ";
  pae.append(payload_type);
  pae += " " + std::to_string(payload.size()) + " ";
  pae.append(payload);
  return pae;
}

std::string SignEnvelope(std::string_view payload_type, std::string_view payload, const PrivateKey& key) {
  const std::string signature = Sign(key, PreAuthEncoding(payload_type, payload));
  // Every string written is base64, hex or the fixed type: nothing needs escaping, but the
  // type is checked so no caller can make the text other than JSON.
  for (char c : payload_type) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) throw std::invalid_argument("payload type");
  }
  std::string out = "{\"payloadType\":\"";
  out.append(payload_type);
  out += "\",\"payload\":\"" + Base64Encode(payload) + "\",\"signatures\":[{\"keyid\":\"" + key.public_key.keyid +
         "\",\"sig\":\"" + Base64Encode(signature) + "\"}]}\n";
  return out;
}

bool LooksLikeEnvelope(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n')) ++at;
  return at < text.size() && text[at] == '{' && text.find("\"payloadType\"") != std::string_view::npos;
}

std::optional<std::string> OpenEnvelope(std::string_view text, const PublicKey& trusted, const FileReporter& report,
                                        std::string* refused_payload) {
  std::optional<Envelope> envelope = ParseEnvelope(text, report);
  if (!envelope) return std::nullopt;
  const std::string pae = PreAuthEncoding(envelope->payload_type, envelope->payload);
  bool named = false;
  std::uint64_t failed_at = 0;
  std::vector<std::string> others;
  for (const Signature& s : envelope->signatures) {
    // A keyid other than the trusted key's names another signer; a missing keyid may be anyone's.
    if (s.keyid && !s.keyid->empty() && *s.keyid != trusted.keyid) {
      others.push_back(*s.keyid);
      continue;
    }
    if (Verify(trusted, pae, s.sig)) {
      if (envelope->payload_type != kInTotoPayloadType) {
        report(Diag::kAttestPayloadType, 0,
               "The envelope's payloadType is " + QuoteForMessage(envelope->payload_type) + ", not " +
                   std::string(kInTotoPayloadType) + ": it is not an in-toto statement.");
        return std::nullopt;
      }
      return std::move(envelope->payload);
    }
    if (!named) failed_at = s.offset;
    named = true;
  }
  if (named) {
    report(Diag::kAttestSignatureInvalid, failed_at,
           "The signature for trusted key " + trusted.keyid.substr(0, 16) +
               " does not verify over this payload and payload type: the envelope changed after it was signed.");
  } else {
    report(Diag::kAttestForeignKey, 0,
           "The envelope is signed only by " +
               (others.size() == 1 ? "key " + QuoteForMessage(others.front(), 64)
                                   : std::to_string(others.size()) + " other keys") +
               ", not by the trusted key " + trusted.keyid.substr(0, 16) + ".");
  }
  if (refused_payload != nullptr && envelope->payload_type == kInTotoPayloadType) {
    *refused_payload = std::move(envelope->payload);
  }
  return std::nullopt;
}

}  // namespace ckpt::attest
