#include "lib/oms/transparency_log.h"

#include "lib/core/base64.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/json/json_writer.h"
#include "lib/json/strict_parser.h"
#include "lib/oms/json_fields.h"

namespace ckpt::oms {
namespace {

// A bundle carries one entry, sometimes two; an audit path of a tree below 2^64 leaves has
// at most 64 hashes.
constexpr std::size_t kMaxEntries = 16;
constexpr std::size_t kMaxPathHashes = 64;
constexpr std::size_t kMaxSignatureLines = 16;
constexpr std::string_view kEmDashSpace = "\xe2\x80\x94 ";  // a signature line's "— "

// An int64 as protobuf's JSON mapping writes it: a decimal string (or, accepted, a number).
std::optional<std::uint64_t> IntegerMember(const json::Value& object, std::string_view key) {
  auto v = object.Find(key);
  if (!v) return std::nullopt;
  if (v->is(json::Type::kNumber)) return v->AsInteger();
  if (!v->is(json::Type::kString)) return std::nullopt;
  const std::string text = v->String();
  if (text.empty() || text.size() > 19 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return value;
}

std::string HashChildren(std::string_view left, std::string_view right) {
  std::string input(1, '\x01');
  input.append(left).append(right);
  return Sha256Digest(input);
}

// What the entry's body says was logged: this payload, this signature, this certificate.
std::optional<std::string> CheckBody(std::string_view body, std::string_view payload, std::string_view signature,
                                     std::string_view certificate) {
  json::Document doc{std::string(body)};
  if (json::Parse(doc) || !doc.duplicates.empty() || !doc.root().is(json::Type::kObject)) {
    return std::string("its canonicalizedBody is not a JSON object");
  }
  const json::Value root = doc.root();
  if (root.FindString("kind") != "dsse" || root.FindString("apiVersion") != "0.0.1") {
    return std::string("its canonicalizedBody is not a dsse 0.0.1 entry");
  }
  auto spec = root.Find("spec");
  if (!spec || !spec->is(json::Type::kObject)) return std::string("its canonicalizedBody has no spec");
  auto payload_hash = spec->Find("payloadHash");
  if (!payload_hash || !payload_hash->is(json::Type::kObject) || payload_hash->FindString("algorithm") != "sha256") {
    return std::string("its body has no sha256 payloadHash");
  }
  const std::string expected = ToHex(Sha256Digest(payload));
  if (payload_hash->FindString("value") != expected) {
    return "it records the payload " + QuoteForMessage(payload_hash->FindString("value").value_or(""), 80) +
           ", not this one (sha256 " + expected + ")";
  }
  auto signatures = spec->Find("signatures");
  if (!signatures || !signatures->is(json::Type::kArray) || signatures->Size() != 1) {
    return std::string("its body does not record exactly one signature");
  }
  const json::Value logged = *signatures->Items().begin();
  if (!logged.is(json::Type::kObject)) return std::string("its body's signature is not an object");
  if (Base64Member(logged, "signature") != std::string(signature)) {
    return std::string("it records another signature than the envelope's");
  }
  auto verifier = Base64Member(logged, "verifier");
  std::string label;
  auto der = verifier ? PemBlock(*verifier, {"CERTIFICATE"}, label) : std::variant<std::string, KeyError>();
  const auto* der_bytes = std::get_if<std::string>(&der);
  if (!verifier || der_bytes == nullptr || *der_bytes != certificate) {
    return std::string("it records another verifier than the bundle's certificate");
  }
  return std::nullopt;
}

struct EntryResult {
  std::optional<std::string> error;
  bool has_set = false;
  std::int64_t integrated_time = 0;
  std::string log_url;
};

EntryResult CheckEntry(const json::Value& entry, const TrustedRoot& root, std::string_view payload,
                       std::string_view signature, std::string_view certificate) {
  EntryResult result;
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    return result;
  };
  if (!entry.is(json::Type::kObject)) return fail("it is not an object");
  auto log_id = entry.Find("logId");
  auto key_id = log_id && log_id->is(json::Type::kObject) ? Base64Member(*log_id, "keyId") : std::nullopt;
  if (!key_id) return fail("it has no base64 logId.keyId");
  const LogKey* log = nullptr;
  for (const LogKey& candidate : root.tlogs) {
    if (candidate.key_id == *key_id) log = &candidate;
  }
  if (log == nullptr) return fail("its log " + ToHex(*key_id) + " is not a transparency log of the trusted root");
  result.log_url = log->base_url;
  if (!log->key) return fail("its log's key is " + log->unsupported);
  auto kind = entry.Find("kindVersion");
  if (!kind || !kind->is(json::Type::kObject) || kind->FindString("kind") != "dsse" ||
      kind->FindString("version") != "0.0.1") {
    return fail("it is not a dsse 0.0.1 entry (kindVersion)");
  }
  auto log_index = IntegerMember(entry, "logIndex");
  auto integrated_time = IntegerMember(entry, "integratedTime");
  if (!log_index || !integrated_time) return fail("it has no integer logIndex and integratedTime");
  auto body = Base64Member(entry, "canonicalizedBody");
  if (!body) return fail("it has no base64 canonicalizedBody");
  if (auto wrong = CheckBody(*body, payload, signature, certificate)) return fail(*wrong);

  const auto time_ms = static_cast<std::int64_t>(*integrated_time) * 1000;
  if (*integrated_time > static_cast<std::uint64_t>(INT64_MAX / 1000) || !log->valid_for.Contains(time_ms)) {
    return fail("its integratedTime " + std::to_string(*integrated_time) +
                " lies outside the validity of the log's key in the trusted root");
  }

  if (auto promise = entry.Find("inclusionPromise")) {
    auto set = promise->is(json::Type::kObject) ? Base64Member(*promise, "signedEntryTimestamp") : std::nullopt;
    if (!set) return fail("its inclusionPromise has no base64 signedEntryTimestamp");
    // What Rekor signed: the canonical JSON of the entry's body, time, log and index.
    const std::string signed_json = "{\"body\":" + json::QuoteString(Base64Encode(*body)) +
                                    ",\"integratedTime\":" + std::to_string(*integrated_time) + ",\"logID\":\"" +
                                    ToHex(*key_id) + "\",\"logIndex\":" + std::to_string(*log_index) + "}";
    if (!VerifySignature(*log->key, signed_json, *set)) {
      return fail("its signed entry timestamp does not verify with the key of " + QuoteForMessage(log->base_url) +
                  " (the entry's body, integratedTime, logIndex or SET changed)");
    }
    result.has_set = true;
    result.integrated_time = static_cast<std::int64_t>(*integrated_time);
  }

  if (auto proof = entry.Find("inclusionProof")) {
    if (!proof->is(json::Type::kObject)) return fail("its inclusionProof is not an object");
    auto index = IntegerMember(*proof, "logIndex");
    auto tree_size = IntegerMember(*proof, "treeSize");
    auto root_hash = Base64Member(*proof, "rootHash");
    auto hashes = proof->Find("hashes");
    if (!index || !tree_size || !root_hash || root_hash->size() != 32 || !hashes || !hashes->is(json::Type::kArray)) {
      return fail("its inclusionProof lacks an integer logIndex and treeSize, a 32-byte rootHash or hashes");
    }
    std::vector<std::string> path;
    for (const json::Value item : hashes->Items()) {
      auto hash = item.is(json::Type::kString) ? Base64Decode(item.String()) : std::nullopt;
      if (!hash || hash->size() != 32 || path.size() == kMaxPathHashes) {
        return fail("its inclusionProof's hashes are not at most 64 base64 SHA-256 values");
      }
      path.push_back(std::move(*hash));
    }
    const std::string leaf_hash = Sha256Digest(std::string(1, '\0') + *body);
    if (!VerifyInclusionPath(*index, *tree_size, leaf_hash, path, *root_hash)) {
      return fail("its inclusion proof does not lead from the entry at " + std::to_string(*index) +
                  " to the root hash of a tree of " + std::to_string(*tree_size));
    }
    auto checkpoint = proof->Find("checkpoint");
    auto note = checkpoint && checkpoint->is(json::Type::kObject) ? checkpoint->FindString("envelope") : std::nullopt;
    if (!note) return fail("its inclusionProof has no checkpoint envelope");
    if (auto wrong = VerifyCheckpoint(*note, *log, *tree_size, *root_hash)) return fail("its checkpoint " + *wrong);
  }
  return result;
}

}  // namespace

bool VerifyInclusionPath(std::uint64_t index, std::uint64_t tree_size, std::string_view leaf_hash,
                         const std::vector<std::string>& path, std::string_view root_hash) {
  if (index >= tree_size) return false;
  std::uint64_t fn = index;
  std::uint64_t sn = tree_size - 1;
  std::string r(leaf_hash);
  for (const std::string& p : path) {
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      r = HashChildren(p, r);
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = HashChildren(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root_hash;
}

std::optional<std::string> VerifyCheckpoint(std::string_view note, const LogKey& log, std::uint64_t tree_size,
                                            std::string_view root_hash) {
  const std::size_t blank = note.find("\n\n");
  if (blank == std::string_view::npos) return std::string("is not a signed note (no blank line before signatures)");
  const std::string_view text = note.substr(0, blank + 1);  // what the log signed
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.size() < 3) return std::string("has no origin, size and root lines");
  if (lines[1] != std::to_string(tree_size)) {
    return "is for a tree of " + QuoteForMessage(lines[1], 40) + ", not " + std::to_string(tree_size);
  }
  if (Base64Decode(lines[2]) != std::string(root_hash)) return std::string("names another root hash than the proof");
  std::string_view signatures = note.substr(blank + 2);
  const std::string_view hint = std::string_view(log.key_id).substr(0, 4);
  std::size_t seen = 0;
  while (!signatures.empty() && seen++ < kMaxSignatureLines) {
    const std::size_t end = signatures.find('\n');
    if (end == std::string_view::npos) return std::string("has a signature line without its newline");
    const std::string_view line = signatures.substr(0, end);
    signatures.remove_prefix(end + 1);
    if (line.substr(0, kEmDashSpace.size()) != kEmDashSpace) return std::string("has a malformed signature line");
    const std::size_t space = line.rfind(' ');
    auto decoded = Base64Decode(line.substr(space + 1));
    if (!decoded || decoded->size() <= 4) return std::string("has a signature that is not base64");
    if (std::string_view(*decoded).substr(0, 4) != hint) continue;  // another witness's
    if (VerifySignature(*log.key, text, std::string_view(*decoded).substr(4))) return std::nullopt;
    return "is not signed by the key of " + QuoteForMessage(log.base_url);
  }
  return "carries no signature by the key of " + QuoteForMessage(log.base_url);
}

TlogVerdict VerifyTlogEntries(const std::optional<json::Value>& entries_array, const TrustedRoot& root,
                              std::string_view payload, std::string_view signature, std::string_view certificate) {
  TlogVerdict verdict;
  if (entries_array) verdict.offset = entries_array->offset();
  if (!entries_array || entries_array->Size() == 0) {
    verdict.error = "the bundle has no transparency log entry";
    return verdict;
  }
  const json::Value entries = *entries_array;
  if (entries.Size() > kMaxEntries) {
    verdict.error = "the bundle has more than " + std::to_string(kMaxEntries) + " transparency log entries";
    return verdict;
  }
  std::size_t number = 0;
  for (const json::Value entry : entries.Items()) {
    ++number;
    EntryResult result = CheckEntry(entry, root, payload, signature, certificate);
    if (result.error) {
      verdict.error = std::move(result.error);
      verdict.entry = number;
      verdict.offset = entry.offset();
      return verdict;
    }
    if (result.has_set && !verdict.integrated_time) {
      verdict.integrated_time = result.integrated_time;
      verdict.log_url = result.log_url;
    }
  }
  if (!verdict.integrated_time) {
    verdict.error =
        "no entry carries a signed entry timestamp, so no time is trusted (an RFC 3161 timestamp is not supported)";
  }
  return verdict;
}

}  // namespace ckpt::oms
