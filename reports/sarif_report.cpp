#include "reports/sarif_report.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>
#include <tuple>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/remote/url.h"
#include "reports/chain_reports.h"
#include "reports/diff_reports.h"
#include "reports/json_pretty.h"
#include "reports/json_report.h"
#include "reports/text_report.h"
#include "rules/catalog.h"

namespace ckpt::reports {
namespace {

// An artifactLocation: relative to %SRCROOT%, or an absolute URL (a remote file) on its own.
boost::json::object UriLocation(const std::string& uri) {
  if (remote::IsRemoteArgument(uri)) return {{"uri", uri}};
  return {{"uri", uri}, {"uriBaseId", "%SRCROOT%"}};
}

namespace fs = std::filesystem;

// A rule's CVSS-like weight for GitHub's security-severity: code execution highest, then
// residency breaches and tampering, then other security errors, warnings and notes.
std::string SecuritySeverity(const RuleInfo& rule) {
  if (rule.id == "weights-format-pickle" || rule.id == "weights-format-zip") return "9.8";
  if (rule.code == Code::kResidencyViolation) return rule.severity == Severity::kNote ? "3.0" : "9.1";
  if (rule.id == "hash-mismatch" || rule.id == "hash-unexpected" || rule.id == "chain-parent-untrusted" ||
      rule.id == "chain-cycle") {
    return "8.8";
  }
  if (rule.severity == Severity::kError) return "7.5";
  return rule.severity == Severity::kWarning ? "5.0" : "2.0";
}

std::string_view Family(std::string_view id) { return id.substr(0, id.find('-')); }

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::string Sentence(std::string text) {
  if (!text.empty() && text.back() != '.' && text.back() != '?' && text.back() != '!') text.push_back('.');
  return text;
}

boost::json::object RuleToSarif(const rules::RuleEntry& entry) {
  const RuleInfo& r = *entry.info;
  boost::json::array tags{boost::json::value(Family(r.id)), boost::json::value(Lower(CodeName(r.code)))};
  if (r.security) tags.push_back("security");
  boost::json::object properties{{"tags", std::move(tags)}, {"precision", "very-high"}};
  if (r.security) properties["security-severity"] = SecuritySeverity(r);
  const std::string help_text = "What it means and why it matters: " + std::string(r.explanation) +
                                "\nHow to fix: " + std::string(r.remediation) +
                                "\nCode: " + std::string(CodeName(r.code)) +
                                ". Rule source: " + std::string(entry.source) + ".";
  const std::string help_markdown = "**What it means and why it matters.** " + std::string(r.explanation) +
                                    "\n\n**How to fix.** " + std::string(r.remediation) + "\n\nCode: `" +
                                    std::string(CodeName(r.code)) + "`. Rule source: `" + std::string(entry.source) +
                                    "`.";
  return boost::json::object{{"id", r.id},
                             {"name", r.name},
                             {"shortDescription", {{"text", Sentence(std::string(r.title))}}},
                             {"fullDescription", {{"text", std::string(r.explanation)}}},
                             {"help", {{"text", help_text}, {"markdown", help_markdown}}},
                             {"defaultConfiguration", {{"level", SeverityName(r.severity)}}},
                             {"properties", std::move(properties)}};
}

std::string HexDigest(std::string_view text) {
  Sha256 h;
  h.Update(text);
  return h.FinalHex();
}

struct Placed {
  const SarifFinding* source;
  std::string uri;
  std::string logical;  // JSON Pointer or tensor: the stable part of the location
  std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t, std::string, std::string> order;
};

bool IsJsonFile(std::string_view uri) { return uri.size() >= 5 && uri.substr(uri.size() - 5) == ".json"; }

// A region for every result: the token (JSON files) or bytes (weight files) when known;
// for a finding about a whole file, its first line (JSON) or its bytes from offset 0.
boost::json::object PhysicalLocation(const std::string& uri, const Location& loc,
                                     const std::map<std::string, std::uint64_t>& lengths) {
  boost::json::object physical{{"artifactLocation", UriLocation(uri)}};
  if (loc.line) {
    physical["region"] = {{"startLine", *loc.line}, {"startColumn", loc.column.value_or(1)}};
  } else if (loc.byte_offset) {
    physical["region"] = {{"byteOffset", *loc.byte_offset}, {"byteLength", loc.byte_length.value_or(1)}};
  } else if (IsJsonFile(uri)) {
    physical["region"] = {{"startLine", 1}, {"startColumn", 1}};
  } else {
    auto it = lengths.find(uri);
    physical["region"] = {{"byteOffset", 0}, {"byteLength", it == lengths.end() ? 0 : it->second}};
  }
  return physical;
}

boost::json::array LogicalLocations(const Location& loc) {
  boost::json::array out;
  if (loc.json_pointer && !loc.json_pointer->empty()) {
    out.push_back({{"fullyQualifiedName", *loc.json_pointer}, {"kind", "member"}});
  }
  if (loc.tensor) out.push_back({{"name", *loc.tensor}, {"fullyQualifiedName", *loc.tensor}, {"kind", "variable"}});
  return out;
}

// The file a location names. A finding about the run as a whole (no file) points at the
// header of `artifact`, which callers set to the first artifact for such findings.
std::string FileOf(const std::string& artifact, const Location& loc, const std::string& whole_file = "header.json") {
  const std::string& root = loc.artifact.empty() ? artifact : loc.artifact;
  const std::string& file = loc.file.empty() ? whole_file : loc.file;
  return file.empty() ? root : root + "/" + file;
}

// What an empty file name means for an artifact of this kind (SarifFinding::whole_file): a
// Lensemble artifact's header; for a model folder or a file, the input itself.
std::string WholeFile(InputKind kind) { return kind == InputKind::kLensemble ? "header.json" : ""; }

}  // namespace

std::string RelativeUri(const fs::path& path, const fs::path& root) {
  // A remote file is named by its redacted absolute URL (remote.md section 9): --source-root
  // does not apply to it.
  if (const std::string& text = path.native();  // native: generic_string() merges the "//"
      remote::IsRemoteArgument(text)) {
    return text;
  }
  fs::path relative = fs::absolute(path).lexically_normal().lexically_relative(root.lexically_normal());
  std::string text = relative.generic_string();
  if (text.empty()) text = ".";
  return EncodeUriPath(text);
}

std::string EncodeUriPath(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char raw : text) {
    const auto c = static_cast<unsigned char>(raw);
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

void WriteSarif(std::ostream& out, const SarifInput& input, const SarifOptions& options, const ReportContext& context) {
  const fs::path root = options.source_root;
  std::vector<Placed> placed;
  for (const SarifFinding& f : input.findings) {
    const Location& loc = f.finding->location;
    const std::string file = FileOf(f.artifact.empty() ? input.fallback_artifact : f.artifact, loc, f.whole_file);
    // The stable part of the location: the tensor when there is one (a JSON Pointer into
    // tensor_manifest holds an array index that moves when unrelated tensors are added).
    Placed p{&f,
             RelativeUri(file, root),
             loc.tensor ? "tensor:" + *loc.tensor : "pointer:" + loc.json_pointer.value_or(""),
             {}};
    p.order = {p.uri,
               loc.line.value_or(0),
               loc.column.value_or(0),
               loc.byte_offset.value_or(0),
               std::string(f.finding->rule->id),
               f.finding->message};
    placed.push_back(std::move(p));
  }
  if (!input.keep_order) {
    std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.order < b.order; });
  }
  const std::size_t dropped = placed.size() > kMaxSarifResults ? placed.size() - kMaxSarifResults : 0;
  if (dropped) placed.resize(kMaxSarifResults);
  // The rules the results name (sorted by id, as the catalog is), or the whole catalog.
  std::set<std::string_view> named;
  for (const Placed& p : placed) named.insert(p.source->finding->rule->id);
  std::map<std::string_view, std::size_t> rule_index;
  boost::json::array rules;
  for (const rules::RuleEntry& entry : rules::AllRules()) {  // sorted by id
    if (!input.whole_catalog && !named.contains(entry.info->id)) continue;
    rule_index[entry.info->id] = rules.size();
    rules.push_back(RuleToSarif(entry));
  }

  // artifacts[]: containers first (a tar, a hub-cache repository folder), then every file,
  // nested files with parentIndex (SARIF 2.1.0 section 3.24.3); a tar member is named
  // inside its tar ("/header.json"), and results in it point at that entry by index.
  boost::json::array artifacts;
  std::vector<FileDigest> files = input.files;
  std::sort(files.begin(), files.end(), [](const FileDigest& a, const FileDigest& b) { return a.path < b.path; });
  std::map<std::string, std::size_t> container_index;
  std::map<std::string, std::pair<std::size_t, std::string>> nested;  // member's path uri -> index, uri in its tar
  for (const FileDigest& file : files) {
    if (!file.container || container_index.count(*file.container)) continue;
    container_index[*file.container] = artifacts.size();
    boost::json::object entry{{"location", UriLocation(RelativeUri(*file.container, root))}};
    for (const FileDigest& c : files) {
      if (c.path == *file.container && c.length) entry["length"] = c.length;
    }
    artifacts.push_back(std::move(entry));
  }
  for (const FileDigest& file : files) {
    if (container_index.count(file.path)) continue;  // listed above
    boost::json::object location = file.member ? boost::json::object{{"uri", EncodeUriPath(*file.member)}}
                                               : UriLocation(RelativeUri(file.path, root));
    boost::json::object entry{{"location", std::move(location)}, {"length", file.length}};
    if (!file.sha256.empty()) entry["hashes"] = {{"sha-256", file.sha256}};
    if (file.container) entry["parentIndex"] = container_index.at(*file.container);
    if (file.member) nested[RelativeUri(file.path, root)] = {artifacts.size(), EncodeUriPath(*file.member)};
    artifacts.push_back(std::move(entry));
  }

  std::map<std::string, std::uint64_t> lengths;  // uri -> file length, for whole-file regions
  for (const FileDigest& file : input.files) lengths[RelativeUri(file.path, root)] = file.length;
  boost::json::array results;
  for (const Placed& p : placed) {
    const Finding& f = *p.source->finding;
    const Location& loc = f.location;
    boost::json::object physical = PhysicalLocation(p.uri, loc, lengths);
    if (auto it = nested.find(p.uri); it != nested.end()) {  // inside a tar: its entry of artifacts[]
      physical["artifactLocation"] = {{"uri", it->second.second}, {"index", it->second.first}};
    }
    boost::json::object location{{"physicalLocation", std::move(physical)}};
    boost::json::array logical = LogicalLocations(loc);
    if (!logical.empty()) location["logicalLocations"] = std::move(logical);
    boost::json::object fingerprints{
        {"ckptFinding/v1", HexDigest(std::string(f.rule->id) + '\0' + p.uri + '\0' + p.logical)}};
    if (!loc.line && loc.byte_offset) {
      // Binary files: GitHub cannot hash a "line", so give it one that ignores offsets.
      fingerprints["primaryLocationLineHash"] =
          HexDigest(std::string(f.rule->id) + '\0' + p.logical).substr(0, 16) + ":1";
    }
    boost::json::object result{{"ruleId", f.rule->id},
                               {"ruleIndex", rule_index.at(f.rule->id)},
                               {"level", SeverityName(f.severity())},
                               {"message", {{"text", EscapeForDisplay(Sentence(f.message))}}},
                               {"locations", boost::json::array{std::move(location)}},
                               {"partialFingerprints", std::move(fingerprints)}};
    if (f.suppression) {  // accepted for now by the --baseline: shown as suppressed, not counted
      result["suppressions"] = boost::json::array{
          {{"kind", "external"},
           {"status", "accepted"},
           {"justification", EscapeForDisplay(f.suppression->reason)},
           {"properties", {{"expires", f.suppression->expires}, {"entry", f.suppression->index + 1}}}}};
      if (f.suppression->acceptance()) {
        // A reviewed acceptance: which file said so, and for which bytes and globals it holds.
        boost::json::object& properties = result["suppressions"].as_array()[0].as_object()["properties"].as_object();
        properties["by"] = "acceptance";
        properties["source"] = EscapeForDisplay(f.suppression->source);
        properties["sha256"] = f.suppression->sha256;
        if (f.location.global) properties["global"] = EscapeForDisplay(*f.location.global);
        if (f.location.call) properties["call"] = EscapeForDisplay(*f.location.call);
      }
    }
    if (p.source->baseline) {
      const Location& base = *p.source->baseline;
      boost::json::object related{
          {"id", 1},
          {"physicalLocation",
           PhysicalLocation(RelativeUri(FileOf(p.source->baseline_artifact, base), root), base, lengths)},
          {"message",
           {{"text", f.location.tensor ? "The same tensor in the baseline artifact A."
                                       : "The header of the baseline artifact A."}}}};
      boost::json::array base_logical = LogicalLocations(base);
      if (!base_logical.empty()) related["logicalLocations"] = std::move(base_logical);
      result["relatedLocations"] = boost::json::array{std::move(related)};
    }
    results.push_back(std::move(result));
  }

  boost::json::array notifications;
  for (const std::string& e : input.tool_errors) {
    notifications.push_back({{"level", "error"}, {"message", {{"text", EscapeForDisplay(Sentence(e))}}}});
  }
  for (const std::string& note : input.dropped_notes) {
    notifications.push_back({{"level", "warning"}, {"message", {{"text", EscapeForDisplay(Sentence(note))}}}});
  }
  if (dropped) {
    notifications.push_back(
        {{"level", "warning"},
         {"message",
          {{"text", std::to_string(dropped) + " results were dropped: GitHub code scanning accepts at most " +
                        std::to_string(kMaxSarifResults) + " per run."}}}});
  }
  boost::json::object invocation{{"executionSuccessful", input.exit_code != kExitToolError},
                                 {"exitCode", input.exit_code}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);

  const std::string root_path = RelativeUri(root, "/");  // percent-encoded, without the leading '/'
  std::string root_uri = "file:///" + (root_path == "." ? std::string() : root_path);
  if (root_uri.back() != '/') root_uri.push_back('/');
  boost::json::object run{
      {"tool",
       {{"driver",
         {{"name", context.tool_name},
          {"semanticVersion", context.version},
          {"informationUri", CKPT_INFORMATION_URI},
          {"rules", std::move(rules)}}}}},
      {"invocations", boost::json::array{std::move(invocation)}},
      {"originalUriBaseIds",
       {{"%SRCROOT%",
         {{"uri", root_uri}, {"description", {{"text", "The scan root: the current directory, or --source-root."}}}}}}},
      {"artifacts", std::move(artifacts)},
      {"results", std::move(results)},
      {"columnKind", "utf16CodeUnits"}};
  boost::json::object properties = input.properties;
  if (!input.inputs.empty()) {  // what each input was, recognised by content
    boost::json::array inputs;
    for (const auto& [path, kind] : input.inputs) {
      inputs.push_back({{"uri", RelativeUri(path, root)}, {"kind", kind}});
    }
    properties["inputs"] = std::move(inputs);
  }
  if (context.policy) properties["policy"] = *context.policy;  // the effective policy and rule-set fingerprint
  if (!properties.empty()) run["properties"] = std::move(properties);
  if (options.category) run["automationDetails"] = {{"id", context.tool_name + "/" + *options.category + "/"}};
  WritePrettyJson(out,
                  boost::json::object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                                      {"version", "2.1.0"},
                                      {"runs", boost::json::array{std::move(run)}}},
                  /*exact_bytes=*/false);
}

// ---- adapters: each tool's model, flattened

namespace {

// SARIF artifacts[]: every file the audit read whole, with the digest it computed while
// reading (reports never touch the disk).
void AddDigests(SarifInput& input, const Artifact& artifact) {
  const std::string& root = artifact.FilesRoot();
  std::optional<std::string> container;
  if (artifact.container) {
    container = artifact.container->first;
    input.files.push_back({*container, artifact.container->second, "", std::nullopt, std::nullopt});
  } else if (artifact.model && artifact.model->repository) {
    container = (fs::path(root) / ".." / "..").lexically_normal().string();  // models--ORG--NAME
    input.files.push_back({*container, 0, "", std::nullopt, std::nullopt});
  }
  for (const AdmittedFile& f : artifact.files) {
    // A tar member is listed even when not hashed: results inside it point at its entry.
    if (!f.sha256 && !artifact.container) continue;
    FileDigest digest{f.name.empty() ? root : root + "/" + f.name, f.identity.size, f.sha256.value_or(""), container,
                      std::nullopt};
    if (artifact.container) digest.member = f.name;
    input.files.push_back(std::move(digest));
  }
}

}  // namespace

SarifInput SarifFromAudit(std::span<const AuditResult> results, FailThreshold threshold) {
  SarifInput input;
  std::vector<std::string> roots;
  for (const AuditResult& r : results) {
    for (const Finding& f : r.findings) {
      input.findings.push_back({&f, r.artifact.path, std::nullopt, "", WholeFile(r.artifact.kind)});
    }
    for (const DroppedFindings& d : r.dropped) input.dropped_notes.push_back(r.artifact.path + ": " + DroppedLine(d));
    for (const std::string& e : r.tool_errors) input.tool_errors.push_back(e);
    roots.push_back(r.artifact.path);
  }
  if (!roots.empty()) input.fallback_artifact = roots.front();
  for (const AuditResult& r : results) {
    AddDigests(input, r.artifact);
    input.inputs.emplace_back(r.artifact.path, InputKindName(r.artifact.kind));
  }
  // What each --verify-model-signature established, as the JSON report's model_signature.
  boost::json::array signatures;
  for (const AuditResult& r : results) {
    if (r.model_signature) signatures.push_back(ModelSignatureToJson(*r.model_signature));
  }
  if (!signatures.empty()) input.properties["model_signatures"] = std::move(signatures);
  input.exit_code = ExitCodeOf(results, threshold);
  return input;
}

SarifInput SarifFromChain(const ChainRun& run, FailThreshold threshold) {
  SarifInput input;
  std::vector<std::string> roots;
  for (std::size_t i : run.graph.scope) {
    const ChainNode& n = run.graph.nodes[i];
    for (const DroppedFindings& d : n.audit_dropped) input.dropped_notes.push_back(n.path + ": " + DroppedLine(d));
    for (const std::string& e : n.tool_errors) input.tool_errors.push_back(e);
    roots.push_back(n.path);
  }
  // Results root cause first, as every chain report lists them.
  input.keep_order = true;
  std::set<const Finding*> audited;
  for (std::size_t i : run.graph.scope) {
    for (const Finding& f : run.graph.nodes[i].audit_findings) audited.insert(&f);
  }
  for (const PlacedFinding& p : ChainFindingsByCause(run)) {
    const std::string artifact = p.node ? run.graph.nodes[*p.node].path : "";
    if (audited.count(p.finding)) {
      input.findings.push_back({p.finding, artifact, std::nullopt, "", WholeFile(run.graph.nodes[*p.node].kind)});
    } else {
      input.findings.push_back({p.finding, artifact, std::nullopt, ""});
    }
  }
  for (const std::string& e : run.discovery_errors) input.tool_errors.push_back(e);
  if (!run.history.empty()) input.fallback_artifact = run.graph.nodes[run.history.front()].path;
  for (std::size_t i : run.graph.scope) {
    Artifact shape;  // a chain node keeps its files and path; its kind says what its files are
    shape.path = run.graph.nodes[i].path;
    shape.files = run.graph.nodes[i].files;
    shape.kind = run.graph.nodes[i].kind;
    shape.container = run.graph.nodes[i].container;
    AddDigests(input, shape);
  }
  input.exit_code = ChainExitCode(run, threshold);
  return input;
}

SarifInput SarifFromDiff(const DiffRun& run, FailThreshold threshold) {
  SarifInput input;
  for (const DroppedFindings& d : run.dropped) input.dropped_notes.push_back(DroppedLine(d));
  for (const AuditResult* r : {&run.a, &run.b}) {
    for (const Finding& f : r->findings) {
      input.findings.push_back({&f, r->artifact.path, std::nullopt, "", WholeFile(r->artifact.kind)});
    }
    for (const DroppedFindings& d : r->dropped) input.dropped_notes.push_back(r->artifact.path + ": " + DroppedLine(d));
    for (const std::string& e : r->tool_errors) input.tool_errors.push_back(e);
  }
  for (const Finding& f : run.findings) {
    SarifFinding sf{&f, run.b.artifact.path, std::nullopt, run.a.artifact.path};
    Location base;
    base.artifact = run.a.artifact.path;
    base.file = "header.json";
    base.tensor = f.location.tensor;
    if (f.location.tensor && run.a.artifact.header && run.a.artifact.header->tensor_manifest) {
      for (const ManifestEntry& e : *run.a.artifact.header->tensor_manifest) {
        if (e.name != *f.location.tensor) continue;
        base = run.a.artifact.header->json.At(e.offset, e.Pointer());
        base.artifact = run.a.artifact.path;
        base.tensor = e.name;
      }
    }
    if (f.location.tensor || f.rule->id == "diff-not-child") sf.baseline = base;
    input.findings.push_back(std::move(sf));
  }
  input.fallback_artifact = run.b.artifact.path;
  AddDigests(input, run.a.artifact);
  AddDigests(input, run.b.artifact);
  input.inputs.emplace_back(run.a.artifact.path, InputKindName(run.a.artifact.kind));
  input.inputs.emplace_back(run.b.artifact.path, InputKindName(run.b.artifact.kind));
  input.exit_code = DiffExitCode(run, threshold);
  input.properties["summary"] = DiffSummaryJson(run, ListedTensors(run).size());
  return input;
}

}  // namespace ckpt::reports
