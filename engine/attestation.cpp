#include "engine/attestation.h"

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "engine/audit.h"
#include "lib/attest/derivation.h"
#include "lib/attest/dsse.h"
#include "lib/attest/input_files.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "lib/io/small_file.h"
#include "lib/load/input.h"
#include "lib/remote/remote_source.h"
#include "lib/remote/url.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {

Location FileLocation(const std::string& path) {
  Location at;
  const std::filesystem::path p(path);
  at.artifact = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  at.file = p.filename().string();
  return at;
}

namespace {

namespace fs = std::filesystem;

using LocatedSink = rules::LocatedRuleSink;

// A signed file opened against `key`: its statement parsed by `parse`, or the findings (into
// `sink`, located at the file) saying why not; `tool_error` when the file cannot be read.
template <class Statement>
struct Opened {
  std::optional<std::string> tool_error;
  std::optional<Statement> statement;
  /// What an envelope no trusted signature verifies claims (its diagnostics discarded).
  std::optional<Statement> refused;
  VerificationFacts::Signature signature = VerificationFacts::Signature::kUnreadable;
  bool payload_type_ok = false;
  std::string envelope_sha256;  ///< of the bytes read (a BOM references the envelope by it)
};

// Diagnostics of a payload nobody vouches for: the envelope's refusal is the finding.
class DiscardingSink final : public DiagnosticSink {
 public:
  void Report(Diag /*kind*/, Location /*location*/, std::string /*message*/) override {}
};

template <class Statement>
Opened<Statement> OpenSigned(const std::string& path, const attest::PublicKey& key, FindingSink& sink,
                             std::optional<Statement> (*parse)(std::string_view, const FileReporter&)) {
  Opened<Statement> out;
  const SmallFile file = ReadSmallFile(path, attest::kMaxEnvelopeBytes);
  if (!file.ok()) {
    out.tool_error = path + " " + file.error;
    return out;
  }
  {
    Sha256 sha;
    sha.Update(file.text);
    out.envelope_sha256 = sha.FinalHex();
  }
  LocatedSink located(sink, FileLocation(path));
  const FileReporter report("", located);
  std::string refused_payload;
  const std::size_t before = sink.findings().size();
  if (auto payload = attest::OpenEnvelope(file.text, key, report, &refused_payload)) {
    out.signature = VerificationFacts::Signature::kVerified;
    out.payload_type_ok = true;
    out.statement = parse(*payload, report);
    return out;
  }
  if (!refused_payload.empty()) {
    DiscardingSink discarded;
    out.refused = parse(refused_payload, FileReporter("", discarded));
  }
  for (std::size_t i = before; i < sink.findings().size(); ++i) {
    const RuleInfo* rule = sink.findings()[i].rule;
    if (rule == &rules::attest_signature_invalid::kRule) out.signature = VerificationFacts::Signature::kInvalid;
    if (rule == &rules::attest_foreign_key::kRule) out.signature = VerificationFacts::Signature::kForeignKey;
    if (rule == &rules::attest_payload_type::kRule) out.signature = VerificationFacts::Signature::kVerified;
  }
  return out;
}

boost::json::value NullOr(const std::optional<std::string>& text) {
  return text ? boost::json::value(ToValidUtf8(*text)) : boost::json::value(nullptr);
}
boost::json::value NullOr(const std::optional<std::uint64_t>& n) {
  return n ? boost::json::value(*n) : boost::json::value(nullptr);
}

// The kind a statement names, or kUnknown.
InputKind KindNamed(std::string_view name) { return InputKindFromName(name).value_or(InputKind::kUnknown); }

bool IsSingleFileKind(InputKind kind) {
  return kind != InputKind::kLensemble && kind != InputKind::kLensembleTar && kind != InputKind::kModelFolder;
}

// Reports every difference; returns how many signed subjects match a file of the input now.
std::size_t CompareSubjects(const std::vector<attest::Subject>& signed_subjects, const attest::InputFiles& input,
                            const std::string& input_path, FindingSink& sink) {
  std::size_t matched = 0;
  const std::vector<attest::Subject>& now = input.files;
  std::map<std::string, const attest::Subject*> current;
  for (const attest::Subject& s : now) current.emplace(s.name, &s);
  std::map<std::string, const attest::Subject*> recorded;
  for (const attest::Subject& s : signed_subjects) recorded.emplace(s.name, &s);
  auto report = [&](const std::string& file, std::string message) {
    Location at;
    at.artifact = input_path;
    at.file = file;
    sink.Report(rules::attest_subject_mismatch::kRule, std::move(at), std::move(message));
  };
  std::map<std::string, std::string> unaccounted(input.unaccounted.begin(), input.unaccounted.end());
  for (const auto& [name, s] : recorded) {
    auto it = current.find(name);
    if (it == current.end() && unaccounted.contains(name)) {
      report(name, "The statement's subject " + QuoteForMessage(name) + " is " + unaccounted.at(name) +
                       " now, not the file it signed.");
      unaccounted.erase(name);
    } else if (it == current.end()) {
      report(name, "The statement's subject " + QuoteForMessage(name) + " is not a file of the input now.");
    } else if (it->second->sha256 != s->sha256) {
      report(name, "File " + QuoteForMessage(name) + " hashes to " + it->second->sha256 + " now, but the statement " +
                       "signed " + s->sha256 + ": it changed after the audit.");
    } else {
      ++matched;
    }
  }
  for (const auto& [name, s] : current) {
    if (!recorded.contains(name)) {
      report(name, "File " + QuoteForMessage(name) + " of the input is not among the statement's subjects: it was " +
                       "added after the audit.");
    }
  }
  // Entries no statement can name: each is more than the signed input holds.
  for (const auto& [name, what] : unaccounted) {
    report(name, "Entry " + QuoteForMessage(name) + " of the input is " + what +
                     ", which no statement's subjects account for: the input is not what was signed.");
  }
  return matched;
}

}  // namespace

std::string AuditStatementPayload(const AuditResult& result, const std::vector<attest::Subject>& subjects,
                                  const AttestOptions& options) {
  const Artifact& a = result.artifact;
  boost::json::array subject;
  for (const attest::Subject& s : subjects) {
    subject.push_back({{"name", ToValidUtf8(s.name)}, {"digest", {{"sha256", s.sha256}}}});
  }
  const RuleSetFingerprint rules_in_force = RulesInForce(options.gate != nullptr ? &options.gate->gate : nullptr);
  boost::json::array findings;
  for (const Finding& f : result.findings) {
    boost::json::object item{{"rule", f.rule->id},
                             {"code", CodeName(f.rule->code)},
                             {"severity", SeverityName(f.severity())},
                             {"file", ToValidUtf8(f.location.file)}};
    if (f.suppression) {
      boost::json::object suppressed{{"reason", f.suppression->reason}, {"expires", f.suppression->expires}};
      if (f.suppression->acceptance()) {
        // A reviewed acceptance is signed with what it holds for: the bytes and the global.
        suppressed["by"] = "acceptance";
        suppressed["sha256"] = f.suppression->sha256;
        if (f.location.global) suppressed["global"] = ToValidUtf8(*f.location.global);
        if (f.location.call) suppressed["call"] = ToValidUtf8(*f.location.call);
      }
      item["suppressed"] = std::move(suppressed);
    }
    findings.push_back(std::move(item));
  }
  const SeverityCounts counts = CountFindings(result);
  boost::json::object predicate;
  predicate["tool"] = {{"name", "ckpt-audit"}, {"version", CKPT_VERSION}};
  predicate["rules"] = {{"count", rules_in_force.count}, {"fingerprint", rules_in_force.sha256}};
  boost::json::object policy = EffectivePolicyJson(a.policy, options.threshold, options.gate);
  policy.erase("rules");  // the predicate's own `rules` field
  predicate["policy"] = std::move(policy);
  predicate["kind"] = InputKindName(a.kind);
  predicate["verdict"] = VerdictName(VerdictOf(result, options.threshold));
  predicate["counts"] = {{"error", counts.errors}, {"warning", counts.warnings}, {"note", counts.notes}};
  predicate["findings"] = std::move(findings);
  if (InputKinds::Lensemble().Has(a.kind)) {
    predicate["content_hash"] = NullOr(a.computed_hash);
    // The header's fields as a history reads them: only from a supported schema version.
    if (a.header && a.header->version_supported) {
      const Header& h = *a.header;
      predicate["declared_content_hash"] = NullOr(h.content_hash);
      if (h.parent_hash_present) predicate["parent_hash"] = NullOr(h.parent_hash);
      predicate["round_index"] = NullOr(h.round_index);
      predicate["wmcp_version"] = NullOr(h.wmcp_version);
    }
    predicate["schema_version"] = a.header ? NullOr(a.header->schema_version) : boost::json::value(nullptr);
  }
  if (a.remote) {  // where the bytes were read, and the version of each file the server gave
    boost::json::array files;
    for (const AdmittedFile& f : a.files) {
      if (!f.remote) continue;
      files.push_back(
          {{"name", ToValidUtf8(f.name)},
           {"etag", f.remote->etag.empty() ? boost::json::value(nullptr) : boost::json::value(f.remote->etag)}});
    }
    predicate["remote"] = {{"url", a.remote->url}, {"commit", NullOr(a.remote->commit)}, {"files", std::move(files)}};
  }
  if (options.time) predicate["audited_at"] = *options.time;
  boost::json::object statement;
  statement["_type"] = attest::kStatementType;
  statement["subject"] = std::move(subject);
  statement["predicateType"] = attest::kAuditPredicateType;
  statement["predicate"] = std::move(predicate);
  return boost::json::serialize(statement);
}

namespace {

// A remote input's subjects (remote.md section 10): one per file, named by its redacted URL
// (a directory URL plus the relative name; hf://ORG/NAME@COMMIT/PATH), with the digest of
// the bytes read; the listing's oids are never copied in place of a digest.
InputSubjects RemoteSubjects(const Artifact& a) {
  InputSubjects out;
  if (a.kind == InputKind::kLensembleTar) {
    out.error = "cannot sign " + QuoteForMessage(a.path) + ": a remote tar is read by its members, not hashed whole";
    return out;
  }
  for (const AdmittedFile& f : a.files) {
    if (!f.sha256 || f.change) {
      out.error = "cannot sign " + QuoteForMessage(a.path) + ": " + QuoteForMessage(f.name.empty() ? a.path : f.name) +
                  (f.change ? " changed on the server during the audit" : " was not hashed");
      return out;
    }
    std::string name = a.path;
    if (!f.name.empty()) name += (name.ends_with('/') ? "" : "/") + f.name;
    out.subjects.push_back({name, *f.sha256, f.identity.size});
  }
  std::sort(out.subjects.begin(), out.subjects.end(),
            [](const attest::Subject& x, const attest::Subject& y) { return x.name < y.name; });
  return out;
}

}  // namespace

InputSubjects SubjectsOfAudit(const AuditResult& result) {
  const Artifact& a = result.artifact;
  if (a.remote) return RemoteSubjects(a);
  std::map<std::string, std::string> known;
  // A tar's subject is the tar itself: its members' digests say nothing about it.
  if (a.kind != InputKind::kLensembleTar) {
    for (const AdmittedFile& f : a.files) {
      if (f.sha256 && !f.change) known.emplace(f.name, *f.sha256);
    }
  }
  const std::string own_name = fs::path(a.path).filename().string();
  attest::InputFiles files = attest::DigestInputFiles(
      a.path,
      [&](const std::string& name) -> std::optional<std::string> {
        // A single-file input's one file is admitted as "" (the input itself).
        if (IsSingleFileKind(a.kind) && name != own_name) return std::nullopt;
        auto it = known.find(IsSingleFileKind(a.kind) ? std::string() : name);
        return it == known.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      std::max(1u, a.policy.file_jobs), a.excluded);
  if (!files.error && !files.unaccounted.empty()) {
    // A statement names regular files only; an input with anything else cannot be signed
    // as it is (its verification would fail, and a link may point outside the input).
    files.error = "cannot sign " + QuoteForMessage(a.path) + ": " + QuoteForMessage(files.unaccounted.front().first) +
                  " is " + files.unaccounted.front().second + ", and a statement names regular files only";
  }
  return {std::move(files.files), std::move(files.error)};
}

std::variant<std::map<std::string, std::string>, std::string> VerifiedSubjectDigests(const std::string& envelope_path,
                                                                                     const attest::PublicKey& key) {
  FindingSink sink;
  auto opened = OpenSigned(envelope_path, key, sink, &attest::ParseAuditStatement);
  if (opened.tool_error) return *opened.tool_error;
  if (!opened.statement || opened.signature != VerificationFacts::Signature::kVerified) {
    return "the statement " + envelope_path + " is not verified by the trusted key" +
           (sink.findings().empty() ? std::string() : ": " + sink.findings().front().message);
  }
  if (opened.statement->predicate.verdict != "pass") {
    return "the statement " + envelope_path + " signs the verdict '" + opened.statement->predicate.verdict +
           "', not pass";
  }
  std::map<std::string, std::string> digests;
  for (const attest::Subject& subject : opened.statement->subjects) digests[subject.name] = subject.sha256;
  return digests;
}

AuditResult VerifyAttestation(const std::string& envelope_path, const attest::PublicKey& key,
                              const std::string& input_path, const AuditOptions& options) {
  AuditResult result;
  result.artifact.path = input_path;
  result.artifact.kind = InputKind::kUnknown;
  FindingSink sink;
  auto opened = OpenSigned(envelope_path, key, sink, &attest::ParseAuditStatement);
  if (opened.tool_error) {
    result.tool_errors.push_back(*opened.tool_error);
    return result;
  }
  const std::optional<attest::AuditStatement>& statement = opened.statement;
  VerificationFacts& facts = result.verification.emplace();
  facts.method = "attestation";
  facts.envelope = envelope_path;
  facts.envelope_sha256 = opened.envelope_sha256;
  facts.key_id = key.keyid;
  facts.signature = opened.signature;
  facts.payload_type_ok = opened.payload_type_ok;
  if (statement) {
    const attest::AuditPredicate& p = statement->predicate;
    facts.predicate_type = attest::kAuditPredicateType;
    facts.tool_name = p.tool_name;
    facts.tool_version = p.tool_version;
    facts.signed_kind = p.kind;
    facts.signed_verdict = p.verdict;
    facts.rules_count = p.rules_count;
    facts.rules_fingerprint = p.rules_fingerprint;
    if (p.rules_fingerprint) {
      facts.rules_match = *p.rules_fingerprint == RulesInForce(options.gate).sha256;
    }
    facts.subjects = statement->subjects.size();
  }
  if (statement) {
    attest::InputFiles now;
    if (remote::IsRemoteArgument(input_path)) {
      // The files read now, by the same audit's reads (remote.md section 10), compared with the
      // subjects; for hf:// the subject names carry the commit, so another commit differs.
      AuditOptions read_options = options;
      read_options.digest_files = true;
      const AuditResult audited = AuditPath(input_path, read_options);
      if (!audited.tool_errors.empty()) {
        result.tool_errors = audited.tool_errors;
        return result;
      }
      InputSubjects subjects = RemoteSubjects(audited.artifact);
      now.files = std::move(subjects.subjects);
      now.error = std::move(subjects.error);
      result.artifact.path = audited.artifact.path;
      result.artifact.remote = audited.artifact.remote;
    } else {
      // The verifying run's own reports inside the input are left out, as its audit would.
      now = attest::DigestInputFiles(input_path, {}, std::max(1u, options.file_jobs),
                                     OutputsInside(input_path, options.excluded_outputs));
    }
    if (now.error) {
      result.tool_errors.push_back(*now.error);
      return result;
    }
    facts.subjects_matched = CompareSubjects(statement->subjects, now, input_path, sink);
    facts.subjects_compared = true;
    // The report lists the input's files as they hash now.
    result.artifact.kind = KindNamed(statement->predicate.kind);
    std::error_code ec;
    const bool single_file =
        result.artifact.remote ? IsSingleFileKind(result.artifact.kind) : fs::is_regular_file(input_path, ec);
    for (const attest::Subject& s : now.files) {
      AdmittedFile f;
      f.name = single_file ? std::string() : s.name;  // a file input is its own one file, as in an audit
      f.identity.size = s.size;
      f.sha256 = s.sha256;
      result.artifact.files.push_back(std::move(f));
    }
    if (statement->predicate.verdict != "pass") {
      Location at = FileLocation(envelope_path);
      sink.Report(rules::attest_verdict_fail::kRule, at,
                  "The statement verifies, but its signed verdict is fail (" +
                      std::to_string(statement->predicate.findings.size()) + " findings listed, the first " +
                      (statement->predicate.findings.empty()
                           ? std::string("not named")
                           : QuoteForMessage(statement->predicate.findings.front().rule, 64)) +
                      ").");
    }
  }
  if (result.artifact.kind == InputKind::kUnknown && !remote::IsRemoteArgument(input_path)) {
    // The statement told nothing: the report names the input by what it is.
    DiscardingSink discarded;
    result.artifact.kind = OpenInputPath(input_path, discarded).kind;
  }
  result.findings = std::move(sink.findings());
  result.dropped = sink.dropped();
  return result;
}

AuditResult VerifyDerivationRecord(const std::string& record_path, const attest::PublicKey& key,
                                   const std::string& output_path, const std::optional<std::string>& input_path,
                                   const remote::RemoteOptions& remote) {
  AuditResult result;
  result.artifact.path = output_path;
  result.artifact.kind = kAcceptedWeightsKind;
  FindingSink sink;
  auto opened = OpenSigned(record_path, key, sink, &attest::ParseDerivationStatement);
  if (opened.tool_error) {
    result.tool_errors.push_back(*opened.tool_error);
    return result;
  }
  const std::optional<attest::DerivationStatement>& record = opened.statement;
  VerificationFacts& facts = result.verification.emplace();
  facts.method = "derivation";
  facts.envelope = record_path;
  facts.envelope_sha256 = opened.envelope_sha256;
  facts.key_id = key.keyid;
  facts.signature = opened.signature;
  facts.payload_type_ok = opened.payload_type_ok;
  if (record) {
    facts.predicate_type = attest::kDerivationPredicateType;
    facts.subjects = record->subjects.size();
    facts.input_record = record->input_name;
    facts.input_sha256 = record->input_sha256;
    facts.input_checked = input_path.has_value();
    facts.tensors = record->tensors.size();
    facts.aliases = record->aliases.size();
  }
  if (record) {
    // Each file opened once, as the audit opens a single-file input (no final symlink); a
    // remote input as the audit reads one (bound to its ETag), its source kept while read.
    remote::OpenedRemote remote_input;
    auto open = [&](const std::string& path) -> std::optional<attest::DerivationFile> {
      if (remote::IsRemoteArgument(path)) {
        remote_input = remote::OpenRemote(path, remote);
        if (remote_input.source && remote_input.form != remote::OpenedRemote::Form::kFile) {
          result.tool_errors.push_back(remote_input.source->facts().url +
                                       " is a remote folder, not the checkpoint file");
          return std::nullopt;
        }
        if (!remote_input.source) {
          result.tool_errors.push_back(remote_input.usage_error.empty() ? remote_input.tool_error
                                                                        : remote_input.usage_error);
          return std::nullopt;
        }
        auto file = remote_input.source->Open(remote_input.file_name);
        if (!file) {
          result.tool_errors.push_back("cannot open " + remote_input.source->facts().url + ": " +
                                       file.error().message());
          return std::nullopt;
        }
        return attest::DerivationFile{remote_input.file_name, std::move(*file)};
      }
      const fs::path p(path);
      auto dir = DirectorySource::OpenDirectory(p.has_parent_path() ? p.parent_path().string() : ".");
      if (!dir) {
        result.tool_errors.push_back("cannot open " + path + ": " + dir.error().message());
        return std::nullopt;
      }
      auto file = (*dir)->Open(p.filename().string());
      if (!file) {
        result.tool_errors.push_back("cannot open " + path + ": " + file.error().message());
        return std::nullopt;
      }
      return attest::DerivationFile{p.filename().string(), std::move(*file)};
    };
    auto output = open(output_path);
    std::optional<attest::DerivationFile> input;
    if (input_path) input = open(*input_path);
    if (!output || (input_path && !input)) return result;
    // Output findings are located in the output; input findings in the input.
    class ByFile final : public DiagnosticSink {
     public:
      ByFile(FindingSink& sink, std::string output, std::string input)
          : rules_(sink), output_(std::move(output)), input_(std::move(input)) {}
      void Report(Diag kind, Location location, std::string message) override {
        const bool about_input = kind == Diag::kDerivationInputMismatch || kind == Diag::kDerivationSourceMismatch;
        const fs::path p(about_input ? input_ : output_);
        location.artifact = p.has_parent_path() ? p.parent_path().string() : std::string(".");
        location.file = p.filename().string();
        rules_.Report(kind, std::move(location), std::move(message));
      }

     private:
      rules::RuleSink rules_;
      std::string output_;
      std::string input_;
    } by_file(
        sink, output_path,
        input_path && remote::IsRemoteArgument(*input_path) ? remote::RedactUrl(*input_path) : input_path.value_or(""));
    auto verified = attest::VerifyDerivation(*record, std::move(*output), input ? &*input : nullptr, by_file);
    if (!verified) {
      result.tool_errors.push_back("cannot read while verifying: " + verified.error().message());
    } else {
      // The report lists the output as it hashes now (the input is named in its findings).
      AdmittedFile f;
      f.identity.size = verified->output_size;
      f.sha256 = verified->output_sha256;
      result.artifact.files.push_back(std::move(f));
      const std::string output_name = fs::path(output_path).filename().string();
      facts.subjects_compared = true;
      for (const attest::Subject& subject : record->subjects) {
        if (subject.name == output_name && subject.sha256 == verified->output_sha256) ++facts.subjects_matched;
      }
    }
  }
  result.findings = std::move(sink.findings());
  result.dropped = sink.dropped();
  return result;
}

ChainNode NodeFromEnvelope(const std::string& path, const attest::PublicKey& key) {
  ChainNode node;
  node.path = path;
  const Location at = FileLocation(path);
  node.parent_location = node.hash_location = at;
  FindingSink sink;
  auto [tool_error, statement, refused, signature, payload_type_ok, envelope_sha256] =
      OpenSigned(path, key, sink, &attest::ParseAuditStatement);
  if (tool_error) {
    node.tool_errors.push_back(*tool_error);
    return node;
  }
  if (refused) {
    // Known by what it claims, so a child naming it is told which envelope was refused and
    // why: the claims link nothing (the node offers no link hash) and say nothing of its own
    // parent.
    const attest::AuditPredicate& p = refused->predicate;
    node.refused_claims = true;
    node.round_index = p.round_index;
    node.declared_hash = p.content_hash ? p.content_hash : p.declared_content_hash;
    // A round audited after it was tampered with claims its recomputed hash, while its child
    // names the header's: either names this refused envelope, never a missing round.
    if (p.declared_content_hash && p.declared_content_hash != node.declared_hash) {
      node.claimed_header_hash = p.declared_content_hash;
    }
    std::string claims = p.round_index ? "round " + std::to_string(*p.round_index) : std::string("no round");
    if (node.declared_hash) claims += " with content hash " + node.declared_hash->substr(0, 12);
    for (Finding& f : sink.findings()) {
      f.message += " The refused statement claims " + EscapeForDisplay(claims) + "; nothing it claims is trusted.";
    }
  }
  bool usable = statement.has_value();
  if (statement) {
    const attest::AuditPredicate& p = statement->predicate;
    node.kind = p.kind == "lensemble-tar" ? InputKind::kLensembleTar : InputKind::kLensemble;
    if (p.kind != "lensemble" && p.kind != "lensemble-tar") {
      sink.Report(rules::attest_statement_invalid::kRule, at,
                  "The statement is about a " + QuoteForMessage(p.kind, 32) +
                      " input, not a Lensemble artifact: it has no place in a parent_hash history.");
      usable = false;
    } else if (p.verdict == "pass" && !p.content_hash) {
      sink.Report(rules::attest_statement_invalid::kRule, at,
                  "The statement carries no recomputed content_hash (the audit ran without hashing): a history "
                  "cannot link to a hash nobody recomputed.");
      usable = false;
    }
    // The signed audit's own findings, as ckpt-chain over the artifact would hold them.
    for (const attest::SignedFinding& f : p.findings) {
      const RuleInfo* rule = rules::FindRule(f.rule);
      if (rule == nullptr) {
        sink.Report(rules::attest_statement_invalid::kRule, at,
                    "The statement lists a finding of rule " + QuoteForMessage(f.rule, 64) +
                        ", which this version of the tools does not know.");
        usable = false;
        continue;
      }
      sink.Report(*rule, at,
                  "The signed audit found: " + std::string(rule->title) +
                      (f.file.empty() ? std::string(".") : " (in " + QuoteForMessage(f.file) + ")."));
      if (!sink.findings().empty() && sink.findings().back().rule == rule) {
        // The severity the signer's policy gave it.
        if (auto signed_severity = ParseSeverity(f.severity); signed_severity && *signed_severity != rule->severity) {
          sink.findings().back().severity_override = signed_severity;
        }
      }
      if (f.suppressed && !sink.findings().empty() && sink.findings().back().rule == rule) {
        // The signer's baseline accepted it: it stays accepted, as the signed verdict says.
        auto accepted = std::make_shared<Suppression>();
        accepted->rule = f.rule;
        accepted->reason = f.suppressed->first;
        accepted->expires = f.suppressed->second;
        sink.findings().back().suppression = std::move(accepted);
      }
    }
    if (p.verdict == "fail") {
      sink.Report(rules::attest_verdict_fail::kRule, at,
                  "The statement verifies, but its signed verdict is fail: the round failed its audit.");
    }
    node.computed_hash = p.content_hash;
    node.declared_hash = p.declared_content_hash;
    node.parent_present = p.parent_present;
    node.parent_hash = p.parent_hash;
    node.round_index = p.round_index;
    node.wmcp_version = p.wmcp_version;
    node.schema_version = p.schema_version;
  }
  node.audit_findings = std::move(sink.findings());
  node.audit_dropped = sink.dropped();
  node.audit_passed = usable && statement->predicate.verdict == "pass" &&
                      std::none_of(node.audit_findings.begin(), node.audit_findings.end(),
                                   [](const Finding& f) { return f.counts() && f.severity() == Severity::kError; });
  if (node.audit_passed) node.link_hash = node.computed_hash;
  return node;
}

}  // namespace ckpt
