#include "lib/attest/statement.h"

#include <algorithm>
#include <set>

#include "lib/core/text.h"
#include "lib/json/strict_parser.h"

namespace ckpt::attest {
namespace {

using json::Type;
using json::Value;

// Reads fields of a parsed payload; the first problem is reported once and every later
// read fails, so a parse function can read on and check ok() at the end.
class Fields {
 public:
  explicit Fields(const FileReporter& report) : report_(report) {}
  [[nodiscard]] bool ok() const { return ok_; }

  bool Fail(const Value& at, const std::string& why) {
    if (ok_) report_(Diag::kAttestStatementInvalid, at.offset(), "The signed statement " + why);
    ok_ = false;
    return false;
  }
  std::optional<Value> Member(const Value& object, std::string_view key, std::string_view where) {
    if (!ok_) return std::nullopt;
    auto v = object.Find(key);
    if (!v) Fail(object, "has no " + std::string(where) + std::string(key) + ".");
    return v;
  }
  std::optional<std::string> String(const Value& object, std::string_view key, std::string_view where = "") {
    auto v = Member(object, key, where);
    if (!v) return std::nullopt;
    if (!v->is(Type::kString)) {
      Fail(*v, "has " + std::string(where) + std::string(key) + " as " + v->Describe() + ", not a string.");
      return std::nullopt;
    }
    return v->String();
  }
  // A string or null: nullopt for null; `present` false when it failed.
  std::optional<std::string> NullableString(const Value& object, std::string_view key, bool& present,
                                            std::string_view where = "") {
    present = false;
    auto v = Member(object, key, where);
    if (!v) return std::nullopt;
    if (v->is(Type::kNull)) {
      present = true;
      return std::nullopt;
    }
    if (!v->is(Type::kString)) {
      Fail(*v, "has " + std::string(where) + std::string(key) + " as " + v->Describe() + ", not a string or null.");
      return std::nullopt;
    }
    present = true;
    return v->String();
  }
  std::optional<std::uint64_t> Integer(const Value& object, std::string_view key, std::string_view where = "") {
    auto v = Member(object, key, where);
    if (!v) return std::nullopt;
    auto n = v->AsInteger();
    if (!n) Fail(*v, "has " + std::string(where) + std::string(key) + " as " + v->Describe() + ", not an integer.");
    return n;
  }
  std::optional<std::string> Hash(const Value& object, std::string_view key, std::string_view where = "") {
    auto v = Member(object, key, where);
    if (!v) return std::nullopt;
    if (!v->is(Type::kString) || !IsSha256Hex(v->String())) {
      Fail(*v, "has " + std::string(where) + std::string(key) + " as " + v->Describe() +
                   ", not 64 lowercase hexadecimal digits.");
      return std::nullopt;
    }
    return v->String();
  }
  std::optional<Value> Typed(const Value& object, std::string_view key, Type type, std::string_view type_name,
                             std::string_view where = "") {
    auto v = Member(object, key, where);
    if (!v) return std::nullopt;
    if (!v->is(type)) {
      Fail(*v, "has " + std::string(where) + std::string(key) + " as " + v->Describe() + ", not " +
                   std::string(type_name) + ".");
      return std::nullopt;
    }
    return v;
  }

 private:
  const FileReporter& report_;
  bool ok_ = true;
};

struct ParsedStatement {
  std::vector<Subject> subjects;
  Value predicate;  ///< points into the caller's Document
};

// The statement layer every predicate shares: _type, subject, predicateType (which must be
// `predicate_type`) and predicate (an object).
std::optional<ParsedStatement> ParseStatement(json::Document& doc, std::string_view predicate_type,
                                              const FileReporter& report) {
  ParsedStatement out;
  if (auto error = json::Parse(doc)) {
    report(Diag::kAttestStatementInvalid, error->offset, "The signed payload is not JSON: " + error->message + ".");
    return std::nullopt;
  }
  if (!doc.duplicates.empty()) {
    report(Diag::kAttestStatementInvalid, doc.duplicates.front().second_offset,
           "The signed statement has the key " + QuoteForMessage(doc.duplicates.front().key) +
               " twice in one object; readers would disagree on its value.");
    return std::nullopt;
  }
  Fields f(report);
  const Value root = doc.root();
  if (!root.is(Type::kObject)) {
    f.Fail(root, "is " + root.Describe() + ", not an object.");
    return std::nullopt;
  }
  auto type = f.String(root, "_type");
  if (type && *type != kStatementType) {
    f.Fail(root, "has _type " + QuoteForMessage(*type) + ", not " + std::string(kStatementType) + ".");
  }
  auto subjects = f.Typed(root, "subject", Type::kArray, "an array");
  auto predicate_type_value = f.String(root, "predicateType");
  if (!f.ok()) return std::nullopt;
  if (*predicate_type_value != predicate_type) {
    report(Diag::kAttestPredicateUnknown, root.Find("predicateType")->offset(),
           "The statement's predicateType is " + QuoteForMessage(*predicate_type_value) + ", not " +
               std::string(predicate_type) + ": it is not evidence for this check.");
    return std::nullopt;
  }
  auto predicate = f.Typed(root, "predicate", Type::kObject, "an object");
  if (!predicate) return std::nullopt;
  out.predicate = *predicate;
  std::set<std::string> names;
  for (const Value item : subjects->Items()) {
    if (!item.is(Type::kObject)) {
      f.Fail(item, "has a subject that is " + item.Describe() + ", not an object.");
      break;
    }
    auto name = f.String(item, "name", "a subject without ");
    auto digest = f.Typed(item, "digest", Type::kObject, "an object", "a subject's ");
    if (!f.ok()) break;
    auto sha = f.Hash(*digest, "sha256", "a subject digest's ");
    if (!f.ok()) break;
    if (!names.insert(*name).second) {
      f.Fail(item, "names the subject " + QuoteForMessage(*name) + " twice.");
      break;
    }
    out.subjects.push_back({std::move(*name), std::move(*sha)});
  }
  if (f.ok() && out.subjects.empty()) f.Fail(*subjects, "has no subject.");
  if (!f.ok()) return std::nullopt;
  std::sort(out.subjects.begin(), out.subjects.end(),
            [](const Subject& a, const Subject& b) { return a.name < b.name; });
  return out;
}

}  // namespace

bool IsSha256Hex(std::string_view text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::optional<AuditStatement> ParseAuditStatement(std::string_view payload, const FileReporter& report) {
  json::Document doc{std::string(payload)};
  auto parsed = ParseStatement(doc, kAuditPredicateType, report);
  if (!parsed) return std::nullopt;
  Fields f(report);
  const Value p = parsed->predicate;
  AuditStatement out;
  out.subjects = std::move(parsed->subjects);
  AuditPredicate& a = out.predicate;
  if (auto tool = f.Typed(p, "tool", Type::kObject, "an object")) {
    a.tool_name = f.String(*tool, "name", "tool.").value_or("");
    a.tool_version = f.String(*tool, "version", "tool.").value_or("");
  }
  // The signer's rule set: read when present (a verifier shows it and compares it with its own).
  if (auto rules = f.ok() ? p.Find("rules") : std::nullopt) {
    if (!rules->is(Type::kObject)) {
      f.Fail(*rules, "has rules as " + rules->Describe() + ", not an object.");
    } else {
      a.rules_count = f.Integer(*rules, "count", "rules.");
      a.rules_fingerprint = f.Hash(*rules, "fingerprint", "rules.");
    }
  }
  a.kind = f.String(p, "kind").value_or("");
  a.verdict = f.String(p, "verdict").value_or("");
  if (f.ok() && a.verdict != "pass" && a.verdict != "fail") {
    f.Fail(*p.Find("verdict"), "has verdict " + QuoteForMessage(a.verdict) + ", not pass or fail.");
  }
  if (auto findings = f.Typed(p, "findings", Type::kArray, "an array")) {
    for (const Value item : findings->Items()) {
      if (!item.is(Type::kObject)) {
        f.Fail(item, "lists a finding that is " + item.Describe() + ", not an object.");
        break;
      }
      SignedFinding sf;
      sf.rule = f.String(item, "rule", "a finding without ").value_or("");
      sf.code = f.String(item, "code", "a finding without ").value_or("");
      sf.severity = f.String(item, "severity", "a finding without ").value_or("");
      sf.file = f.String(item, "file", "a finding without ").value_or("");
      if (auto suppressed = f.ok() ? item.Find("suppressed") : std::nullopt) {
        if (!suppressed->is(Type::kObject)) {
          f.Fail(*suppressed, "marks a finding suppressed with " + suppressed->Describe() + ", not an object.");
          break;
        }
        auto reason = f.String(*suppressed, "reason", "a suppression without ");
        auto expires = f.String(*suppressed, "expires", "a suppression without ");
        if (reason && expires) sf.suppressed.emplace(*reason, *expires);
      }
      if (!f.ok()) break;
      a.findings.push_back(std::move(sf));
    }
  }
  if (f.ok() && (a.kind == "lensemble" || a.kind == "lensemble-tar")) {
    // content_hash is always written (null when not recomputed); the header's fields only
    // when the header declared them in a supported schema version.
    bool present = false;
    a.content_hash = f.NullableString(p, "content_hash", present);
    auto optional_string = [&](std::string_view key, bool& found) -> std::optional<std::string> {
      found = false;
      if (!f.ok() || !p.Find(key)) return std::nullopt;
      return f.NullableString(p, key, found);
    };
    a.declared_content_hash = optional_string("declared_content_hash", present);
    a.parent_hash = optional_string("parent_hash", a.parent_present);
    a.wmcp_version = optional_string("wmcp_version", present);
    for (auto* hash : {&a.content_hash, &a.declared_content_hash, &a.parent_hash}) {
      if (f.ok() && *hash && !IsSha256Hex(**hash)) {
        f.Fail(p, "carries the hash " + QuoteForMessage(**hash) + ", not 64 lowercase hexadecimal digits.");
      }
    }
    for (const char* key : {"round_index", "schema_version"}) {
      auto v = f.ok() ? p.Find(key) : std::nullopt;
      if (!v || v->is(Type::kNull)) continue;
      auto n = f.Integer(p, key);
      (std::string_view(key) == "round_index" ? a.round_index : a.schema_version) = n;
    }
  }
  if (!f.ok()) return std::nullopt;
  return out;
}

std::optional<DerivationStatement> ParseDerivationStatement(std::string_view payload, const FileReporter& report) {
  json::Document doc{std::string(payload)};
  auto parsed = ParseStatement(doc, kDerivationPredicateType, report);
  if (!parsed) return std::nullopt;
  Fields f(report);
  const Value p = parsed->predicate;
  DerivationStatement out;
  out.subjects = std::move(parsed->subjects);
  if (auto input = f.Typed(p, "input", Type::kObject, "an object")) {
    out.input_name = f.String(*input, "name", "input.").value_or("");
    if (auto digest = f.Typed(*input, "digest", Type::kObject, "an object", "input.")) {
      out.input_sha256 = f.Hash(*digest, "sha256", "input.digest.").value_or("");
    }
  }
  std::set<std::string> names;
  if (auto tensors = f.Typed(p, "tensors", Type::kArray, "an array")) {
    for (const Value item : tensors->Items()) {
      if (!item.is(Type::kObject)) {
        f.Fail(item, "lists a tensor that is " + item.Describe() + ", not an object.");
        break;
      }
      DerivedTensor t;
      t.offset = item.offset();
      t.name = f.String(item, "name", "a tensor without ").value_or("");
      t.dtype = f.String(item, "dtype", "a tensor's ").value_or("");
      if (auto shape = f.Typed(item, "shape", Type::kArray, "an array", "a tensor's ")) {
        for (const Value d : shape->Items()) {
          auto n = d.AsInteger();
          if (!n) {
            f.Fail(d, "has a shape dimension that is " + d.Describe() + ", not an integer.");
            break;
          }
          t.shape.push_back(*n);
        }
      }
      t.size_bytes = f.Integer(item, "size_bytes", "a tensor's ").value_or(0);
      t.sha256 = f.Hash(item, "sha256", "a tensor's ").value_or("");
      if (auto source = f.Typed(item, "source", Type::kObject, "an object", "a tensor's ")) {
        t.record = f.String(*source, "record", "a tensor's source.").value_or("");
        t.offset_bytes = f.Integer(*source, "offset_bytes", "a tensor's source.").value_or(0);
      }
      if (!f.ok()) break;
      if (!names.insert(t.name).second) {
        f.Fail(item, "lists the tensor " + QuoteForMessage(t.name) + " twice.");
        break;
      }
      out.tensors.push_back(std::move(t));
    }
  }
  if (f.ok()) f.Typed(p, "not_carried", Type::kArray, "an array");
  if (auto aliases = f.ok() ? p.Find("aliases") : std::nullopt) {
    if (!aliases->is(Type::kObject)) {
      f.Fail(*aliases, "has aliases as " + aliases->Describe() + ", not an object.");
    } else {
      for (const json::Member& m : aliases->Members()) {
        if (!m.value.is(Type::kString)) {
          f.Fail(m.value, "has the alias " + QuoteForMessage(m.key) + " as " + m.value.Describe() + ", not a string.");
          break;
        }
        out.aliases.emplace(m.key, m.value.String());
      }
    }
  }
  if (!f.ok()) return std::nullopt;
  return out;
}

}  // namespace ckpt::attest
