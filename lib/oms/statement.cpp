#include "lib/oms/statement.h"

#include <set>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/json/strict_parser.h"

namespace ckpt::oms {
namespace {

// Statements list files: a large model has thousands, never millions.
constexpr std::size_t kMaxResources = 1000000;

// A decimal without sign or leading zeros, as model_signing writes shard bounds.
std::optional<std::uint64_t> Decimal(std::string_view text) {
  if (text.empty() || text.size() > 19 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// A canonical relative POSIX path: '/'-separated, no leading '/', no empty, '.' or '..'
// component, no NUL.
bool CanonicalPath(std::string_view name) {
  if (name.empty() || name.find('\0') != std::string_view::npos) return false;
  std::size_t at = 0;
  for (;;) {
    const std::size_t slash = name.find('/', at);
    const std::string_view component = name.substr(at, slash == std::string_view::npos ? name.npos : slash - at);
    if (component.empty() || component == "." || component == "..") return false;
    if (slash == std::string_view::npos) return true;
    at = slash + 1;
  }
}

std::optional<std::string> HexBytes(std::string_view hex, std::size_t bytes) {
  if (hex.size() != 2 * bytes) return std::nullopt;
  std::string out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]);
    const int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::optional<HashType> HashNamed(std::string_view name) {
  if (name == "sha256") return HashType::kSha256;
  if (name == "blake2b") return HashType::kBlake2b;
  return std::nullopt;
}

// A JSON number that is a positive integer (1000000000 or 1000000000.0, as protobuf writes it).
std::optional<std::uint64_t> PositiveIntegral(const json::Value& v) {
  if (!v.is(json::Type::kNumber)) return std::nullopt;
  std::string_view raw = v.Raw();
  if (const std::size_t dot = raw.find('.'); dot != std::string_view::npos) {
    for (char c : raw.substr(dot + 1)) {
      if (c != '0') return std::nullopt;
    }
    raw = raw.substr(0, dot);
  }
  auto n = Decimal(raw);
  if (!n || *n == 0) return std::nullopt;
  return n;
}

}  // namespace

std::string_view HashTypeName(HashType hash) { return hash == HashType::kBlake2b ? "blake2b" : "sha256"; }
std::size_t DigestBytes(HashType hash) { return hash == HashType::kBlake2b ? 64 : 32; }

std::string RootDigest(const std::vector<Resource>& resources) {
  Sha256 sha;
  for (const Resource& r : resources) sha.Update(r.digest);
  return sha.FinalHex();
}

std::optional<Manifest> ParseManifest(std::string_view payload, const std::function<void(Diag, std::string)>& report) {
  auto fail = [&](Diag kind, std::string why) -> std::optional<Manifest> {
    report(kind, std::move(why));
    return std::nullopt;
  };
  auto invalid = [&](const std::string& why) {
    return fail(Diag::kOmsStatementInvalid, "The signed statement is not a model signing statement: " + why);
  };
  json::Document doc{std::string(payload)};
  if (auto error = json::Parse(doc)) {
    return invalid("its JSON is invalid at byte " + std::to_string(error->offset) + " (" + error->message + ").");
  }
  if (!doc.duplicates.empty()) {
    return invalid("the key " + QuoteForMessage(doc.duplicates.front().key) + " appears twice in one object.");
  }
  const json::Value root = doc.root();
  if (!root.is(json::Type::kObject)) return invalid("it is " + root.Describe() + ", not an object.");
  if (root.FindString("_type") != std::optional<std::string>(std::string(kStatementType))) {
    return invalid("its _type is not " + std::string(kStatementType) + ".");
  }
  Manifest m;
  auto predicate_type = root.FindString("predicateType");
  if (!predicate_type) return invalid("it has no string predicateType.");
  m.predicate_type = *predicate_type;
  m.legacy = m.predicate_type == kPredicateLegacy;
  if (m.predicate_type != kPredicateV1 && !m.legacy) {
    return fail(Diag::kOmsPredicateUnknown, "The signed statement's predicateType " +
                                                QuoteForMessage(m.predicate_type, 120) +
                                                " is not a model signature (v1.0 or the legacy Digests/v0.1).");
  }
  auto subjects = root.Find("subject");
  if (!subjects || !subjects->is(json::Type::kArray)) return invalid("it has no subject array.");
  std::set<std::string> names;
  auto add_resource = [&](Resource r) -> bool {
    if (m.resources.size() == kMaxResources) return false;
    if (!names.insert(r.name).second) return false;
    m.resources.push_back(std::move(r));
    return true;
  };

  if (m.legacy) {
    // One subject per file, each {name, digest: {sha256}}; sha256 files, no root, no ignores.
    for (const json::Value s : subjects->Items()) {
      auto name = s.is(json::Type::kObject) ? s.FindString("name") : std::nullopt;
      auto digest = s.is(json::Type::kObject) ? s.Find("digest") : std::nullopt;
      auto hex = digest && digest->is(json::Type::kObject) ? digest->FindString("sha256") : std::nullopt;
      if (!name || !hex) return invalid("a subject is not {name, digest: {sha256}}.");
      if (!(CanonicalPath(*name) || *name == ".")) {
        return invalid("the subject name " + QuoteForMessage(*name, 120) + " is not a canonical relative path.");
      }
      auto bytes = HexBytes(*hex, 32);
      if (!bytes) return invalid("the digest of " + QuoteForMessage(*name, 120) + " is not 64 hex digits.");
      Resource r{*name, *name, 0, 0, std::move(*bytes)};
      if (!add_resource(std::move(r))) return invalid(QuoteForMessage(*name, 120) + " is listed twice.");
    }
    if (m.resources.empty()) return invalid("it lists no subject.");
    return m;
  }

  // v1.0: one subject, the root.
  if (subjects->Size() != 1) {
    return fail(Diag::kOmsSubjectInvalid, "The signed statement has " + std::to_string(subjects->Size()) +
                                              " subjects; a v1.0 model signature has one, the root digest.");
  }
  const json::Value subject = *subjects->Items().begin();
  auto subject_digest = subject.is(json::Type::kObject) ? subject.Find("digest") : std::nullopt;
  auto root_hex =
      subject_digest && subject_digest->is(json::Type::kObject) ? subject_digest->FindString("sha256") : std::nullopt;
  auto root_bytes = root_hex ? HexBytes(*root_hex, 32) : std::nullopt;
  if (!root_bytes) {
    return fail(Diag::kOmsSubjectInvalid, "The signed statement's subject has no sha256 digest of 64 hex digits.");
  }

  auto predicate = root.Find("predicate");
  if (!predicate || !predicate->is(json::Type::kObject)) return invalid("it has no predicate object.");
  auto serialization = predicate->Find("serialization");
  if (!serialization || !serialization->is(json::Type::kObject)) return invalid("it has no serialization object.");
  auto method = serialization->FindString("method");
  if (method == std::optional<std::string>("files")) {
    m.method = SerializationMethod::kFiles;
  } else if (method == std::optional<std::string>("shards")) {
    m.method = SerializationMethod::kShards;
  } else {
    return invalid("serialization.method is not files or shards.");
  }
  auto hash_type = serialization->FindString("hash_type");
  if (!hash_type) return invalid("serialization.hash_type is not a string.");
  auto hash = HashNamed(*hash_type);
  if (!hash) {
    return fail(Diag::kOmsHashUnsupported, "The signature's hash_type " + QuoteForMessage(*hash_type, 64) +
                                               " cannot be recomputed (sha256 and blake2b can).");
  }
  m.hash = *hash;
  auto allow = serialization->Find("allow_symlinks");
  if (!allow || !allow->is(json::Type::kBool)) return invalid("serialization.allow_symlinks is not a boolean.");
  m.allow_symlinks = allow->boolean();
  if (m.method == SerializationMethod::kShards) {
    auto size = serialization->Find("shard_size");
    auto n = size ? PositiveIntegral(*size) : std::nullopt;
    if (!n) return invalid("serialization.shard_size is not a positive integer.");
    m.shard_size = *n;
  }
  if (auto ignores = serialization->Find("ignore_paths")) {
    if (!ignores->is(json::Type::kArray)) return invalid("serialization.ignore_paths is not an array.");
    for (const json::Value p : ignores->Items()) {
      if (!p.is(json::Type::kString)) return invalid("an ignore_paths entry is not a string.");
      if (m.ignore_paths.size() == kMaxResources) return invalid("ignore_paths is too long.");
      m.ignore_paths.push_back(p.String());
    }
  }

  auto resources = predicate->Find("resources");
  if (!resources || !resources->is(json::Type::kArray)) return invalid("it has no resources array.");
  const std::string hash_name(HashTypeName(m.hash));
  for (const json::Value item : resources->Items()) {
    auto name = item.is(json::Type::kObject) ? item.FindString("name") : std::nullopt;
    auto algorithm = item.is(json::Type::kObject) ? item.FindString("algorithm") : std::nullopt;
    auto digest = item.is(json::Type::kObject) ? item.FindString("digest") : std::nullopt;
    if (!name || !algorithm || !digest) return invalid("a resource is not {name, algorithm, digest} strings.");
    const bool algorithm_ok =
        *algorithm == hash_name || (m.method == SerializationMethod::kShards &&
                                    *algorithm == hash_name + "-sharded-" + std::to_string(m.shard_size));
    if (!algorithm_ok) {
      return fail(Diag::kOmsHashUnsupported, "The resource " + QuoteForMessage(*name, 120) + " names the algorithm " +
                                                 QuoteForMessage(*algorithm, 64) + ", not what hash_type " + hash_name +
                                                 " and the serialization write.");
    }
    Resource r;
    r.name = *name;
    r.path = *name;
    if (m.method == SerializationMethod::kShards) {
      // PATH:START:END, the range after the last two colons (a path may hold colons).
      const std::size_t last = name->rfind(':');
      const std::size_t middle =
          last == std::string::npos || last == 0 ? std::string::npos : name->rfind(':', last - 1);
      std::uint64_t start = 0;
      std::uint64_t end = 0;
      bool range_ok = middle != std::string::npos;
      if (range_ok) {
        const auto parsed_start = Decimal(std::string_view(*name).substr(middle + 1, last - middle - 1));
        const auto parsed_end = Decimal(std::string_view(*name).substr(last + 1));
        range_ok = parsed_start.has_value() && parsed_end.has_value();
        start = parsed_start.value_or(0);
        end = parsed_end.value_or(0);
      }
      if (!range_ok || start >= end || start % m.shard_size != 0 || end - start > m.shard_size) {
        return invalid("the shard " + QuoteForMessage(*name, 120) + " is not PATH:START:END of one shard of " +
                       std::to_string(m.shard_size) + " bytes.");
      }
      r.path = name->substr(0, middle);
      r.start = start;
      r.end = end;
    }
    if (!(CanonicalPath(r.path) || r.path == ".")) {
      return invalid("the resource name " + QuoteForMessage(*name, 120) + " is not a canonical relative path.");
    }
    auto bytes = HexBytes(*digest, DigestBytes(m.hash));
    if (!bytes) {
      return invalid("the digest of " + QuoteForMessage(*name, 120) + " is not " +
                     std::to_string(2 * DigestBytes(m.hash)) + " hex digits.");
    }
    r.digest = std::move(*bytes);
    if (!add_resource(std::move(r))) return invalid(QuoteForMessage(*name, 120) + " is listed twice.");
  }
  if (m.resources.empty()) return invalid("it lists no resources.");
  const std::string recomputed = RootDigest(m.resources);
  if (recomputed != ToHex(*root_bytes)) {
    return fail(Diag::kOmsRootMismatch,
                "The subject's digest sha256:" + ToHex(*root_bytes) +
                    " is not the root of the resources' digests in their order (sha256:" + recomputed + ").");
  }
  m.root_digest = recomputed;
  return m;
}

}  // namespace ckpt::oms
