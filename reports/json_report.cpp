#include "reports/json_report.h"

#include <boost/json.hpp>
#include <map>
#include <string_view>
#include <vector>

#include "engine/gate.h"
#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "reports/json_pretty.h"

namespace ckpt::reports {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& value) {
  return value ? boost::json::value(*value) : boost::json::value(nullptr);
}

boost::json::value LocationToJson(const Location& loc) {
  boost::json::object out;
  if (!loc.artifact.empty()) out["artifact"] = loc.artifact;
  out["file"] = loc.file;
  if (loc.json_pointer) out["json_pointer"] = *loc.json_pointer;
  if (loc.line) out["line"] = *loc.line;
  if (loc.column) out["column"] = *loc.column;
  if (loc.byte_offset) out["byte_offset"] = *loc.byte_offset;
  if (loc.byte_length) out["byte_length"] = *loc.byte_length;
  if (loc.tensor) out["tensor"] = *loc.tensor;
  if (loc.global) out["global"] = ToValidUtf8(*loc.global);
  if (loc.call) out["call"] = ToValidUtf8(*loc.call);
  return out;
}

// Every tensor the weight files declare, in file order then header order: name, the
// format's dtype token, shape and the file holding it; each given to `emit` as it is made.
void EmitTensorsJson(const Artifact& a, const StreamedArrays::Emit& emit) {
  for (const WeightFile* listed : a.ListedWeightFiles()) {
    const WeightFile& wf = *listed;
    for (const StoredTensor& t : wf.tensors) {
      if (!t.complete) continue;
      boost::json::array shape;
      for (std::uint64_t d : t.shape) shape.push_back(d);
      boost::json::object tensor{{"name", t.name}, {"dtype", t.dtype}, {"shape", std::move(shape)}, {"file", wf.name}};
      if (t.conj || t.neg) {
        boost::json::array bits;
        if (t.conj) bits.emplace_back("conj");
        if (t.neg) bits.emplace_back("neg");
        tensor["math_bits"] = std::move(bits);
      }
      emit(tensor);
    }
  }
}

// templates[] and targets[] (code-in-metadata.md section 4): every chat template and import
// target the readers found, passing or not, from the folder's files and every weight file.
void EmbeddedCodeToJson(const Artifact& a, boost::json::object& out) {
  std::vector<const EmbeddedCode*> sources;
  if (a.model) {
    sources.push_back(&a.model->embedded_code);
    for (const WeightFile& wf : a.model->analysed) sources.push_back(&wf.embedded_code);
    for (const WeightFile& wf : a.model->other_weights) sources.push_back(&wf.embedded_code);
  }
  for (const WeightFile& wf : a.weights) sources.push_back(&wf.embedded_code);
  boost::json::array templates;
  boost::json::array targets;
  std::uint64_t templates_dropped = 0;
  std::uint64_t targets_dropped = 0;
  for (const EmbeddedCode* code : sources) {
    for (const TemplateRecord& t : code->templates) {
      templates.push_back({{"file", BoundedText(t.file)},
                           {"name", BoundedText(t.name)},
                           {"length", t.length},
                           {"sha256", t.sha256},
                           {"parsed", t.parsed},
                           {"unsafe_places", t.hazards}});
    }
    for (const TargetRecord& t : code->targets) {
      boost::json::object target{
          {"file", BoundedText(t.file)},
          {"key_path", BoundedText(t.key_path)},
          {"value", t.is_string ? boost::json::value(BoundedText(t.value)) : boost::json::value(nullptr)},
          {"allowed", t.allowed}};
      if (!t.metadata_key.empty()) target["metadata_key"] = BoundedText(t.metadata_key);
      targets.push_back(std::move(target));
    }
    templates_dropped += code->templates_dropped;
    targets_dropped += code->targets_dropped;
  }
  out["templates"] = std::move(templates);
  out["targets"] = std::move(targets);
  if (templates_dropped + targets_dropped > 0) {
    out["code_records_not_listed"] = {{"templates", templates_dropped}, {"targets", targets_dropped}};
  }
}

boost::json::value ArtifactToJson(const AuditResult& result, const ReportContext& context, StreamedArrays* streamed) {
  const Artifact& a = result.artifact;
  boost::json::object out;
  out["path"] = a.path;
  out["kind"] = InputKindName(a.kind);
  out["verdict"] = VerdictName(VerdictOf(result, context.threshold));
  if (a.container) {
    boost::json::object container{{"path", a.container->first}, {"size", a.container->second}};
    if (const auto& r = a.container_remote) {  // every member's reads are bound to it
      container["url"] = r->url;
      container["etag"] = r->etag.empty() ? boost::json::value(nullptr) : boost::json::value(r->etag);
      container["last_modified"] =
          r->last_modified.empty() ? boost::json::value(nullptr) : boost::json::value(r->last_modified);
      container["identity"] = r->etag.empty() ? "last-modified" : "etag";
    }
    out["container"] = std::move(container);
  }
  boost::json::object schema;
  const Header* h = a.header ? &*a.header : nullptr;
  schema["as_written"] =
      (h && h->schema_version) ? boost::json::value(*h->schema_version) : boost::json::value(nullptr);
  schema["migrated"] =
      (h && h->migrated_version) ? boost::json::value(h->migrated_version) : boost::json::value(nullptr);
  out["schema_version"] = std::move(schema);
  boost::json::object hash;
  hash["declared"] = h ? OptionalString(h->content_hash) : boost::json::value(nullptr);
  hash["computed"] = OptionalString(a.computed_hash);
  hash["expected"] = OptionalString(a.policy.expected_hash);
  if (a.policy.expected_hash) {
    // What the pin is compared with, for every kind (inputs.md section 1b).
    const Artifact::PinTarget target = a.PinnedValue();
    hash["pin"] = {{"compared_with", target.key}, {"value", OptionalString(target.value)}};
  }
  if (!a.computed_hash) hash["not_computed_reason"] = a.hash_not_computed_reason;
  out["content_hash"] = std::move(hash);
  // The verdict is bound to these identities (recorded at open, checked after the last read).
  boost::json::array files;
  const std::vector<const WeightFile*> listed = a.ListedWeightFiles();
  auto optional_text = [](const std::optional<std::string>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  // The weight files whose format module reports facts, by name (in listed order): looked up
  // once per file, so a many-shard artifact's report stays linear.
  std::map<std::string_view, std::vector<const WeightFile*>> facts_by_name;
  for (const WeightFile* wf : listed) {
    if (wf->format_facts != nullptr) facts_by_name[wf->name].push_back(wf);
  }
  for (const AdmittedFile& f : a.files) {
    boost::json::object file{{"name", f.name},
                             {"size", f.identity.size},
                             {"device", f.identity.device},
                             {"inode", f.identity.inode},
                             {"mtime_ns", f.identity.mtime_ns},
                             {"ctime_ns", f.identity.ctime_ns},
                             {"sha256", OptionalString(f.sha256)},
                             {"changed", f.change ? boost::json::value(*f.change) : boost::json::value(nullptr)}};
    if (!f.remote && a.container_remote) {  // a remote tar's member: the tar's validator binds it
      for (const char* local : {"device", "inode", "mtime_ns", "ctime_ns"}) file[local] = nullptr;
      file["identity"] = "container";
    }
    if (f.remote) {  // remote.md section 9: the server's identity of the file, no inode
      for (const char* local : {"device", "inode", "mtime_ns", "ctime_ns"}) file[local] = nullptr;
      file["url"] = f.remote->url;
      file["etag"] = f.remote->etag.empty() ? boost::json::value(nullptr) : boost::json::value(f.remote->etag);
      file["last_modified"] =
          f.remote->last_modified.empty() ? boost::json::value(nullptr) : boost::json::value(f.remote->last_modified);
      file["identity"] = f.remote->etag.empty() ? "last-modified" : "etag";
      file["lfs_oid"] = optional_text(f.remote->lfs_oid);
      file["git_oid"] = optional_text(f.remote->git_oid);
      file["bytes_transferred"] = f.remote->bytes_transferred;
    }
    // What the file's format module reports of it (formats.md section 12: a joblib file's
    // compression, ...).
    if (const auto facts = facts_by_name.find(f.name); facts != facts_by_name.end()) {
      for (const WeightFile* wf : facts->second) {
        boost::json::object fields;
        wf->format_facts->Describe(fields);
        for (auto& [key, value] : fields) file[key] = value;
      }
    }
    files.push_back(std::move(file));
  }
  out["files"] = std::move(files);
  if (!a.excluded.empty()) {
    // The run's own reports inside the input: left out, so a second run judges the same files.
    boost::json::array excluded;
    for (const std::string& name : a.excluded) {
      excluded.push_back({{"name", ToValidUtf8(name)}, {"why", "a report this run writes"}});
    }
    out["excluded"] = std::move(excluded);
  }
  if (a.remote) {
    const RemoteInput& r = *a.remote;
    out["remote"] = {{"url", r.url},
                     {"scheme", r.scheme},
                     {"endpoint", optional_text(r.endpoint)},
                     {"revision", optional_text(r.revision)},
                     {"commit", optional_text(r.commit)},
                     {"listed", r.listed ? boost::json::value(*r.listed) : boost::json::value(nullptr)},
                     {"bytes_transferred", r.bytes_transferred},
                     {"requests", r.requests}};
  }
  if (result.model_signature) out["model_signature"] = ModelSignatureToJson(*result.model_signature);
  if (result.verification) out["verification"] = VerificationToJson(*result.verification);
  out["tensors"] =
      StreamedArrays::ArrayOf(streamed, [&a](const StreamedArrays::Emit& emit) { EmitTensorsJson(a, emit); });
  boost::json::array gguf;
  for (const WeightFile& wf : a.weights) {
    if (!wf.gguf || wf.gguf->version == 0) continue;
    boost::json::array metadata;
    for (const GgufFacts::Entry& e : wf.gguf->metadata) {
      metadata.push_back({{"key", e.key}, {"type", e.type}, {"value", e.value}});
    }
    gguf.push_back({{"file", wf.name},
                    {"version", wf.gguf->version},
                    {"alignment", wf.gguf->alignment},
                    {"metadata", std::move(metadata)},
                    {"metadata_not_listed", wf.gguf->metadata_not_listed}});
  }
  if (!gguf.empty()) out["gguf"] = std::move(gguf);
  EmbeddedCodeToJson(a, out);
  SeverityCounts counts = CountFindings(result);
  out["counts"] = {{"error", counts.errors}, {"warning", counts.warnings}, {"note", counts.notes}};
  boost::json::array findings;
  for (const Finding& f : result.findings) {
    boost::json::value item = FindingToJson(f);
    // The file as a baseline or acceptance entry names it (relative to the policy's root), and
    // the fingerprint an entry can name: the same finding, however the input is spelled.
    const std::string root_relative =
        RootRelativePath(context.fingerprint_root, ReportedPath(result.artifact.path, f.location));
    item.as_object()["path"] = ToValidUtf8(root_relative);
    item.as_object()["fingerprint"] = FindingFingerprint(f.rule->id, root_relative, f.location);
    findings.push_back(std::move(item));
  }
  out["findings"] = std::move(findings);
  out["dropped_findings"] = DroppedToJson(result.dropped);
  boost::json::array errors;
  for (const std::string& e : result.tool_errors) errors.push_back(boost::json::value(e));
  out["tool_errors"] = std::move(errors);
  return out;
}

}  // namespace

boost::json::object SuppressionToJson(const Suppression& s) {
  boost::json::object out{{"by", s.acceptance() ? "acceptance" : "baseline"},
                          {"source", ToValidUtf8(s.source)},
                          {"reason", s.reason},
                          {"expires", s.expires},
                          {"entry", s.index + 1},
                          {"path", s.path ? boost::json::value(*s.path) : boost::json::value(nullptr)},
                          {"path_glob", s.path_glob ? boost::json::value(*s.path_glob) : boost::json::value(nullptr)}};
  if (s.fingerprint) out["fingerprint"] = *s.fingerprint;
  if (s.acceptance()) {
    out["sha256"] = s.sha256;
    out["globals"] = Utf8Strings(s.globals);
    out["calls"] = Utf8Strings(s.calls);
    out["rules"] = Utf8Strings(s.rules);
  }
  return out;
}

boost::json::array DroppedToJson(const std::vector<DroppedFindings>& dropped) {
  boost::json::array out;
  for (const DroppedFindings& d : dropped) {
    boost::json::object item{{"rule", d.rule->id}, {"file", d.file}, {"count", d.count}};
    if (d.suppression) item["suppressed"] = SuppressionToJson(*d.suppression);
    out.push_back(std::move(item));
  }
  return out;
}

boost::json::value FindingToJson(const Finding& finding) {
  boost::json::object out;
  out["rule"] = finding.rule->id;
  out["code"] = CodeName(finding.rule->code);
  out["severity"] = SeverityName(finding.severity());
  out["message"] = finding.message;
  out["location"] = LocationToJson(finding.location);
  // Kept in every report, marked: the baseline entry that accepts it for now.
  if (finding.suppression) out["suppressed"] = SuppressionToJson(*finding.suppression);
  return out;
}

namespace {

std::string_view SignatureName(VerificationFacts::Signature s) {
  switch (s) {
    case VerificationFacts::Signature::kVerified:
      return "verified";
    case VerificationFacts::Signature::kInvalid:
      return "invalid";
    case VerificationFacts::Signature::kForeignKey:
      return "foreign-key";
    case VerificationFacts::Signature::kUnreadable:
      break;
  }
  return "unreadable";
}

}  // namespace

boost::json::object VerificationToJson(const VerificationFacts& facts) {
  auto text_or_null = [](const std::string& s) {
    return s.empty() ? boost::json::value(nullptr) : boost::json::value(ToValidUtf8(s));
  };
  boost::json::object out{{"method", facts.method},
                          {"envelope", ToValidUtf8(facts.envelope)},
                          {"key_id", facts.key_id},
                          {"signature", SignatureName(facts.signature)},
                          {"payload_type_ok", facts.payload_type_ok},
                          {"predicate_type", text_or_null(facts.predicate_type)}};
  if (facts.method == "attestation") {
    out["tool"] = facts.predicate_type.empty() ? boost::json::value(nullptr)
                                               : boost::json::value({{"name", ToValidUtf8(facts.tool_name)},
                                                                     {"version", ToValidUtf8(facts.tool_version)}});
    out["signed_kind"] = text_or_null(facts.signed_kind);
    out["signed_verdict"] =
        facts.signed_verdict ? boost::json::value(*facts.signed_verdict) : boost::json::value(nullptr);
    out["rules"] = {{"count", facts.rules_count ? boost::json::value(*facts.rules_count) : boost::json::value(nullptr)},
                    {"fingerprint", facts.rules_fingerprint ? boost::json::value(*facts.rules_fingerprint)
                                                            : boost::json::value(nullptr)},
                    {"same_as_this_tool",
                     facts.rules_match ? boost::json::value(*facts.rules_match) : boost::json::value(nullptr)}};
  } else {
    out["input"] = facts.predicate_type.empty() ? boost::json::value(nullptr)
                                                : boost::json::value({{"name", ToValidUtf8(facts.input_record)},
                                                                      {"sha256", ToValidUtf8(facts.input_sha256)},
                                                                      {"checked", facts.input_checked}});
    out["tensors"] = facts.tensors;
    out["aliases"] = facts.aliases;
  }
  out["subjects"] = {
      {"compared", facts.subjects_compared}, {"signed", facts.subjects}, {"matched", facts.subjects_matched}};
  return out;
}

std::vector<std::string> VerificationLines(const VerificationFacts& facts) {
  std::vector<std::string> lines;
  using Signature = VerificationFacts::Signature;
  const std::string key = "the trusted key " + facts.key_id;
  switch (facts.signature) {
    case Signature::kVerified:
      lines.push_back("signature: verified with " + key);
      break;
    case Signature::kInvalid:
      lines.push_back("signature: does NOT verify with " + key + " (the envelope changed after it was signed)");
      break;
    case Signature::kForeignKey:
      lines.push_back("signature: made by another key only, not by " + key);
      break;
    case Signature::kUnreadable:
      lines.push_back("signature: not checked (the envelope does not parse)");
      break;
  }
  if (facts.signature != Signature::kVerified) {
    lines.emplace_back("statement: not read (nothing is trusted without the signature)");
    return lines;
  }
  if (!facts.payload_type_ok) {
    lines.emplace_back("statement: not an in-toto statement (payloadType)");
    return lines;
  }
  if (facts.predicate_type.empty()) {
    lines.emplace_back("statement: does not parse as the expected predicate (see the finding)");
    return lines;
  }
  lines.push_back("predicate: " + facts.predicate_type);
  if (facts.method == "attestation") {
    lines.push_back("signed verdict: " + facts.signed_verdict.value_or("?") + " (" +
                    EscapeForDisplay(facts.tool_name + " " + facts.tool_version) + ", input kind " +
                    EscapeForDisplay(facts.signed_kind) + ")");
    if (facts.rules_fingerprint) {
      lines.push_back("rules: " + (facts.rules_count ? std::to_string(*facts.rules_count) + " rules, " : "") +
                      "fingerprint " + *facts.rules_fingerprint +
                      (facts.rules_match.value_or(false) ? " (the same rule set as this tool's)"
                                                         : " (NOT this tool's rule set under this policy)"));
    } else {
      lines.emplace_back("rules: the statement names no rule set");
    }
  } else {
    lines.push_back("input record: " + EscapeForDisplay(facts.input_record) + " sha256 " +
                    EscapeForDisplay(facts.input_sha256) +
                    (facts.input_checked ? " (compared with --derived-from)" : " (not compared: no --derived-from)"));
    lines.push_back("tensors: " + Plural(facts.tensors, "tensor") + ", " + Plural(facts.aliases, "alias"));
  }
  if (facts.subjects_compared) {
    lines.push_back("subjects: " + std::to_string(facts.subjects_matched) + " of " + Plural(facts.subjects, "subject") +
                    (facts.subjects_matched == 1 ? " matches" : " match") + " the input's files now");
  } else {
    lines.push_back("subjects: " + Plural(facts.subjects, "subject") + ", not compared");
  }
  return lines;
}

boost::json::object ModelSignatureToJson(const oms::ModelSignatureFacts& facts) {
  boost::json::object out{
      {"signature", ToValidUtf8(facts.signature)}, {"verified", facts.verified}, {"method", facts.method}};
  if (facts.key_hint) out["key_hint"] = *facts.key_hint;
  if (facts.certificate) {
    out["certificate"] = {{"subject", facts.certificate->subject},
                          {"issuer", facts.certificate->issuer},
                          {"sha256", facts.certificate->sha256}};
  }
  if (facts.identity) out["identity"] = ToValidUtf8(*facts.identity);
  if (facts.issuer) out["issuer"] = ToValidUtf8(*facts.issuer);
  if (facts.integrated_time) out["integrated_time"] = *facts.integrated_time;
  if (facts.predicate_type) out["predicate_type"] = ToValidUtf8(*facts.predicate_type);
  if (facts.pae) out["pae"] = *facts.pae;
  if (facts.serialization) out["serialization"] = *facts.serialization;
  if (facts.hash_type) out["hash_type"] = *facts.hash_type;
  if (facts.files) out["files"] = *facts.files;
  if (facts.resources) out["resources"] = *facts.resources;
  if (facts.root_known) {
    out["root_digest"] = facts.root_digest ? boost::json::value(*facts.root_digest) : boost::json::value(nullptr);
  }
  return out;
}

std::string ModelSignatureLine(const oms::ModelSignatureFacts& facts) {
  if (!facts.verified) return "not verified (" + facts.method + " method; the oms-* findings say why)";
  std::string line = "verified by ";
  if (facts.identity) {
    line += "sigstore " + EscapeForDisplay(*facts.identity) + " from " + EscapeForDisplay(facts.issuer.value_or("?"));
  } else if (facts.certificate) {
    line += "certificate " + EscapeForDisplay(facts.certificate->subject);
  } else {
    line += "key " + facts.key_hint.value_or("?");
  }
  line += " (" + EscapeForDisplay(facts.predicate_type.value_or("?")) + "), " + Plural(facts.files.value_or(0), "file");
  line += facts.root_digest ? ", root sha256:" + *facts.root_digest : std::string(", no root (legacy predicate)");
  return line;
}

boost::json::value AuditReportToJson(std::span<const AuditResult> results, const ReportContext& context,
                                     StreamedArrays* streamed) {
  boost::json::object out;
  out["report"] = "ckpt-audit-report";
  out["report_schema_version"] = kJsonReportSchemaVersion;
  out["tool"] = {{"name", context.tool_name}, {"version", context.version}};
  out["fail_on"] = FailThresholdName(context.threshold);
  out["gating"] = context.threshold.has_value();  // false with --fail-on none: verdicts inform, exit is 0
  if (context.policy) out["policy"] = *context.policy;
  boost::json::array artifacts;
  std::size_t passed = 0, failed = 0, errored = 0;
  for (const AuditResult& r : results) {
    artifacts.push_back(ArtifactToJson(r, context, streamed));
    switch (VerdictOf(r, context.threshold)) {
      case Verdict::kPass:
        ++passed;
        break;
      case Verdict::kFail:
        ++failed;
        break;
      case Verdict::kError:
        ++errored;
        break;
    }
  }
  out["artifacts"] = std::move(artifacts);
  std::uint64_t transferred = 0;
  for (const AuditResult& r : results) transferred += r.artifact.remote ? r.artifact.remote->bytes_transferred : 0;
  out["summary"] = {{"artifacts", results.size()},
                    {"passed", passed},
                    {"failed", failed},
                    {"errors", errored},
                    {"bytes_transferred", transferred}};
  out["exit_code"] = ExitCodeOf(results, context.threshold);
  return out;
}

void WriteJsonReport(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  // Tensor lists are written as they are made: a million tensors never exist as JSON values.
  StreamedArrays streamed;
  WritePrettyJson(out, AuditReportToJson(results, context, &streamed), true, &streamed);
}

}  // namespace ckpt::reports
