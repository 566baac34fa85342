#include "reports/cyclonedx_report.h"

#include <boost/json.hpp>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <set>

#include "engine/verdict.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/remote/url.h"
#include "reports/json_pretty.h"

namespace ckpt::reports {
namespace {

boost::json::object Property(std::string_view name, std::string value) {
  return {{"name", "ckpt-audit:" + std::string(name)}, {"value", std::move(value)}};
}

// An RFC 4122 UUID from 16 bytes (version 4 bits: random, or derived from the BOM's own text).
std::string Uuid(std::array<unsigned char, 16> bytes) {
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "urn:uuid:";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0x0F];
  }
  return out;
}

// The folder's or file's own name (a folder given as `.` by its real name).
std::string PathName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::string name = std::filesystem::path(path).filename().string();
  return name.empty() || name == "." ? std::filesystem::absolute(path).lexically_normal().filename().string() : name;
}

// What a user calls the input: org/name for hf://, else the folder's or file's own name.
std::string ComponentName(const Artifact& a) {
  if (a.remote && a.remote->scheme == "hf") {
    std::string rest = a.path.substr(5);  // hf://
    rest = rest.substr(0, rest.find('@'));
    return rest;
  }
  return PathName(a.path);
}

// A bom-ref that names the input the same way from any machine: its path relative to the
// source root (never absolute; a URL as given) and the start of the value it is pinned by.
std::string BomRef(const std::string& path, const std::string& source_root, const std::optional<std::string>& pin) {
  std::string where = path;
  if (!remote::IsRemoteArgument(path)) {
    std::error_code ec;
    const std::filesystem::path base =
        source_root.empty() ? std::filesystem::current_path(ec) : std::filesystem::absolute(source_root, ec);
    where = std::filesystem::absolute(path, ec)
                .lexically_normal()
                .lexically_relative(base.lexically_normal())
                .generic_string();
    if (where.empty()) where = std::filesystem::path(path).filename().generic_string();
    while (where.size() > 1 && where.back() == '/') where.pop_back();
  }
  if (where.empty()) where = ".";
  return "ckpt-audit:" + BoundedText(where) + "@" + (pin ? pin->substr(0, 16) : std::string("unhashed"));
}

boost::json::array Sha256Hashes(const std::string& hex) {
  return boost::json::array{{{"alg", "SHA-256"}, {"content", hex}}};
}

// CycloneDX's severity for one of ours: a security error is high, a warning medium, a note low.
std::string_view Rating(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "high";
    case Severity::kWarning:
      return "medium";
    case Severity::kNote:
      break;
  }
  return "low";
}

struct Counts {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t notes = 0;
  std::size_t accepted = 0;
};

void Count(Counts& c, Severity severity, bool counts, std::uint64_t n) {
  if (!counts) {
    c.accepted += n;
  } else if (severity == Severity::kError) {
    c.errors += n;
  } else if (severity == Severity::kWarning) {
    c.warnings += n;
  } else {
    c.notes += n;
  }
}

Counts CountOf(const std::vector<Finding>& findings, const std::vector<DroppedFindings>& dropped) {
  Counts c;
  for (const Finding& f : findings) Count(c, f.severity(), f.counts(), 1);
  for (const DroppedFindings& d : dropped) Count(c, d.severity(), d.counts(), d.count);
  return c;
}

// The verdict, the gate and the counts every audited component carries.
boost::json::array GateProperties(InputKind kind, Verdict verdict, const Counts& counts, const ReportContext& context) {
  boost::json::array properties{Property("kind", std::string(InputKindName(kind))),
                                Property("verdict", std::string(VerdictName(verdict))),
                                Property("gating", context.threshold ? "true" : "false"),
                                Property("fail-on", std::string(FailThresholdName(context.threshold))),
                                Property("errors", std::to_string(counts.errors)),
                                Property("warnings", std::to_string(counts.warnings)),
                                Property("notes", std::to_string(counts.notes)),
                                Property("accepted", std::to_string(counts.accepted))};
  if (context.policy) {
    properties.push_back(
        Property("rules-fingerprint", std::string(context.policy->at("rules").at("fingerprint").as_string())));
  }
  return properties;
}

// Every file of an input, by the name the report gives it, nested under the input's bom-ref:
// weights are data, the rest files; a file's SHA-256 only from the audit's own read of it.
struct FileComponents {
  boost::json::array components;
  std::map<std::string, std::string> refs;  ///< file name -> bom-ref
};

FileComponents FilesOf(const std::vector<AdmittedFile>& admitted, const std::set<std::string>& weights,
                       const std::string& ref, const std::string& single_file_name) {
  FileComponents out;
  for (const AdmittedFile& f : admitted) {
    const std::string name = f.name.empty() ? single_file_name : f.name;
    const std::string file_ref = ref + "/" + BoundedText(name);
    if (!out.refs.emplace(f.name, file_ref).second) continue;
    boost::json::object file{
        {"type", weights.count(f.name) != 0 ? "data" : "file"}, {"bom-ref", file_ref}, {"name", BoundedText(name)}};
    boost::json::array properties{Property("size", std::to_string(f.identity.size))};
    if (f.sha256) {
      file["hashes"] = Sha256Hashes(*f.sha256);
    } else {
      properties.push_back(Property("hash-not-verified", "true"));  // nothing invented
    }
    file["properties"] = std::move(properties);
    out.components.push_back(std::move(file));
  }
  return out;
}

// A security finding as a vulnerability of the component `affects` names (accepted or
// baselined: not_affected, with the reason and the expiry).
boost::json::object Vulnerability(const Finding& f, const std::optional<std::string>& affects,
                                  std::size_t& finding_number) {
  boost::json::object v{
      {"bom-ref", "ckpt-audit-finding-" + std::to_string(++finding_number)},
      {"id", std::string(f.rule->id)},
      {"source", {{"name", "ckpt-audit"}, {"url", std::string(CKPT_INFORMATION_URI) + "#" + std::string(f.rule->id)}}},
      {"ratings", boost::json::array{{{"severity", Rating(f.severity())}, {"method", "other"}}}},
      {"description", BoundedText(f.message)}};
  if (affects) v["affects"] = boost::json::array{{{"ref", *affects}}};
  if (f.suppression) {
    v["analysis"] = {{"state", "not_affected"},
                     {"detail", BoundedText((f.suppression->acceptance() ? "accepted: " : "in the baseline: ") +
                                            f.suppression->reason + " (until " + f.suppression->expires + ")")}};
  }
  return v;
}

// The file a finding is in, else the input itself.
std::string AffectedRef(const Finding& f, const FileComponents& files, const std::string& input_ref) {
  auto file = files.refs.find(f.location.file);
  return file != files.refs.end() ? file->second : input_ref;
}

struct Built {
  boost::json::object component;
  boost::json::array vulnerabilities;
};

// What one BOM numbers and names across its components: vulnerabilities in order, and every
// component's bom-ref once (the same input given twice gets "#2" after its reference, and
// its files after that).
struct BomNames {
  std::size_t finding_number = 0;
  std::set<std::string> refs;

  std::string Unique(const std::string& ref) {
    if (refs.insert(ref).second) return ref;
    for (std::size_t k = 2;; ++k) {
      std::string numbered = ref + "#" + std::to_string(k);
      if (refs.insert(numbered).second) return numbered;
    }
  }
};

Built ArtifactComponent(const AuditResult& result, const ReportContext& context, const CycloneDxOptions& options,
                        BomNames& names) {
  const Artifact& a = result.artifact;
  const Artifact::PinTarget pin = a.PinnedValue();
  const std::string ref = names.Unique(BomRef(a.path, options.source_root, pin.value));
  Built built;
  boost::json::object& c = built.component;
  c["type"] = "machine-learning-model";
  c["bom-ref"] = ref;
  c["name"] = BoundedText(ComponentName(a));
  const bool hub = a.remote && a.remote->scheme == "hf";
  // A round's version is its content hash as recomputed (a tampered round's differs from the
  // one it declares), the declared one only when none was computed (--no-hash).
  if (a.header && a.computed_hash) {
    c["version"] = *a.computed_hash;
  } else if (a.header && a.header->content_hash) {
    c["version"] = BoundedText(*a.header->content_hash);
  } else if (hub && a.remote->commit) {
    c["version"] = *a.remote->commit;
  } else if (pin.value) {
    c["version"] = *pin.value;
  }
  if (pin.value) c["hashes"] = Sha256Hashes(*pin.value);
  if (hub && a.remote->commit) c["purl"] = "pkg:huggingface/" + ComponentName(a) + "@" + *a.remote->commit;

  std::set<std::string> weights;
  for (const WeightFile* wf : a.ListedWeightFiles()) weights.insert(wf->name);
  FileComponents files = FilesOf(a.files, weights, ref, ComponentName(a));
  if (!files.components.empty()) c["components"] = std::move(files.components);

  // Where it comes from: a Lensemble round's parent, named by its content hash.
  if (a.header && a.header->parent_hash) {
    c["pedigree"] = {{"ancestors", boost::json::array{{{"type", "machine-learning-model"},
                                                       {"name", BoundedText(ComponentName(a))},
                                                       {"version", *a.header->parent_hash},
                                                       {"hashes", Sha256Hashes(*a.header->parent_hash)}}}}};
  }

  // The model card: only what the files state (config.json's model_type and architectures,
  // a GGUF file's general.architecture, the tensors' dtypes); nothing when nothing is stated.
  boost::json::object parameters;
  std::string architecture_family;
  std::string model_architecture;
  if (a.model) {
    if (a.model->model_type) architecture_family = BoundedText(*a.model->model_type);
    if (!a.model->architectures.empty()) model_architecture = BoundedText(a.model->architectures.front());
  }
  std::set<std::string> dtypes;
  for (const WeightFile* wf : a.ListedWeightFiles()) {
    if (wf->gguf) {
      for (const GgufFacts::Entry& e : wf->gguf->metadata) {
        if (e.key == "general.architecture" && architecture_family.empty()) architecture_family = BoundedText(e.value);
      }
    }
    for (const StoredTensor& t : wf->tensors) {
      if (t.complete && dtypes.size() < 16) dtypes.insert(BoundedText(t.dtype));
    }
  }
  if (!architecture_family.empty()) parameters["architectureFamily"] = architecture_family;
  if (!model_architecture.empty()) parameters["modelArchitecture"] = model_architecture;
  boost::json::object card;
  if (!parameters.empty()) card["modelParameters"] = std::move(parameters);
  if (!dtypes.empty()) {
    std::string joined;
    for (const std::string& d : dtypes) joined += (joined.empty() ? "" : ",") + d;
    card["properties"] = boost::json::array{Property("dtypes", joined)};
  }
  if (!card.empty()) c["modelCard"] = std::move(card);

  // What vouches for it, verified in this run: the signed statement, the model signature.
  boost::json::array references;
  if (result.verification && !result.verification->envelope_sha256.empty() &&
      result.verification->signature == VerificationFacts::Signature::kVerified) {
    references.push_back(
        {{"type", "attestation"},
         {"url", BoundedText(result.verification->envelope)},
         {"comment",
          result.verification->method == "derivation" ? "verified derivation record" : "verified audit statement"},
         {"hashes", boost::json::array{{{"alg", "SHA-256"}, {"content", result.verification->envelope_sha256}}}}});
  }
  if (result.statement_written) {
    references.push_back(
        {{"type", "attestation"},
         {"url", BoundedText(result.statement_written->first)},
         {"comment", "audit statement signed by this run (--attest)"},
         {"hashes", boost::json::array{{{"alg", "SHA-256"}, {"content", result.statement_written->second}}}}});
  }
  if (result.model_signature && result.model_signature->verified && result.model_signature->signature_sha256) {
    references.push_back(
        {{"type", "digital-signature"},
         {"url", BoundedText(result.model_signature->signature)},
         {"comment", "verified OpenSSF Model Signing signature (" + result.model_signature->method + ")"},
         {"hashes", boost::json::array{{{"alg", "SHA-256"}, {"content", *result.model_signature->signature_sha256}}}}});
  }
  if (!references.empty()) c["externalReferences"] = std::move(references);

  boost::json::array properties =
      GateProperties(a.kind, VerdictOf(result, context.threshold), CountOf(result.findings, result.dropped), context);
  if (!pin.value) properties.push_back(Property("hash-not-verified", BoundedText(pin.not_computed_reason)));
  c["properties"] = std::move(properties);

  // Each security finding, on the file it is in (the input itself when it names none).
  for (const Finding& f : result.findings) {
    if (f.rule->security)
      built.vulnerabilities.push_back(Vulnerability(f, AffectedRef(f, files, ref), names.finding_number));
  }
  return built;
}

// One round of a chain: its content hash (recomputed; with --no-hash the declared one is only
// its version), its files, its own verdict and counts (its audit's and the chain's findings on it).
Built RoundComponent(const ChainRun& run, std::size_t index, const ReportContext& context,
                     const CycloneDxOptions& options, BomNames& names) {
  const ChainNode& n = run.graph.nodes[index];
  const std::optional<std::string> pin = n.computed_hash;
  const std::string ref = names.Unique(BomRef(n.path, options.source_root, pin));
  Built built;
  boost::json::object& c = built.component;
  c["type"] = "machine-learning-model";
  c["bom-ref"] = ref;
  c["name"] = BoundedText(PathName(n.path));
  if (const std::string shown = n.ShownHash(); !shown.empty()) c["version"] = BoundedText(shown);
  if (pin) c["hashes"] = Sha256Hashes(*pin);
  const std::set<std::string> weights(n.weight_files.begin(), n.weight_files.end());
  FileComponents files = FilesOf(n.files, weights, ref, PathName(n.path));
  if (!files.components.empty()) c["components"] = std::move(files.components);

  Counts counts = CountOf(n.audit_findings, n.audit_dropped);
  for (const ChainFinding& f : run.findings) {
    if (f.node == index) Count(counts, f.finding.severity(), f.finding.counts(), 1);
  }
  boost::json::array properties = GateProperties(n.kind, NodeVerdict(run, index, context.threshold), counts, context);
  if (n.round_index) properties.push_back(Property("round", std::to_string(*n.round_index)));
  if (n.parent_present) properties.push_back(Property("parent-hash", BoundedText(n.parent_hash.value_or("null"))));
  if (!pin) {
    properties.push_back(Property(
        "hash-not-verified", n.declared_hash ? "the declared content hash was not recomputed" : "no content hash"));
  }
  c["properties"] = std::move(properties);
  for (const Finding& f : n.audit_findings) {
    if (f.rule->security)
      built.vulnerabilities.push_back(Vulnerability(f, AffectedRef(f, files, ref), names.finding_number));
  }
  return built;
}

// The envelope every BOM shares: format, serial number, time, the tool, then the components
// (one: metadata.component) and the vulnerabilities.
void WriteBom(std::ostream& out, boost::json::array components, boost::json::array vulnerabilities,
              boost::json::array metadata_properties, const ReportContext& context, const CycloneDxOptions& options) {
  boost::json::object metadata{
      {"tools",
       {{"components",
         boost::json::array{{{"type", "application"}, {"name", context.tool_name}, {"version", context.version}}}}}}};
  boost::json::object bom{{"bomFormat", "CycloneDX"}, {"specVersion", "1.6"}};
  // With SOURCE_DATE_EPOCH, the timestamp is it and the serial number is derived from the
  // BOM's own content, so the same inputs give the same bytes; else now and random.
  std::array<unsigned char, 16> serial{};
  if (options.source_date_epoch) {
    Sha256 sha;
    sha.Update(std::to_string(*options.source_date_epoch));
    sha.Update(boost::json::serialize(components));
    sha.Update(boost::json::serialize(metadata_properties));
    const std::string hex = sha.FinalHex();
    for (std::size_t i = 0; i < serial.size(); ++i) {
      serial[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    }
    metadata["timestamp"] = UtcTime(*options.source_date_epoch);
  } else {
    std::random_device random;
    for (unsigned char& b : serial) b = static_cast<unsigned char>(random() & 0xFF);
    metadata["timestamp"] = UtcTime(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  }
  bom["serialNumber"] = Uuid(serial);
  bom["version"] = 1;
  const bool one = components.size() == 1;
  if (one) metadata["component"] = std::move(components.front());
  if (!metadata_properties.empty()) metadata["properties"] = std::move(metadata_properties);
  bom["metadata"] = std::move(metadata);
  if (!one && !components.empty()) bom["components"] = std::move(components);
  if (!vulnerabilities.empty()) bom["vulnerabilities"] = std::move(vulnerabilities);
  WritePrettyJson(out, bom, /*exact_bytes=*/false);
  out << "\n";
}

}  // namespace

namespace {

// The last second a four-digit year can name: 9999-12-31T23:59:59Z.
constexpr std::int64_t kLastFourDigitYearSecond = 253'402'300'799;

// SOURCE_DATE_EPOCH's value, or why it has none usable; nullopt value and no problem: unset.
std::pair<std::optional<std::int64_t>, std::optional<std::string>> ReadSourceDateEpoch() {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr || *text == '\0') return {std::nullopt, std::nullopt};
  std::int64_t value = 0;
  const std::string_view view(text);
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (error != std::errc() || end != view.data() + view.size() || value < 0 || value > kLastFourDigitYearSecond) {
    return {std::nullopt, "SOURCE_DATE_EPOCH must be a whole number of seconds since 1970 up to " +
                              std::to_string(kLastFourDigitYearSecond) + " (9999-12-31T23:59:59Z), not " +
                              QuoteForMessage(view, 40)};
  }
  return {value, std::nullopt};
}

}  // namespace

std::optional<std::int64_t> SourceDateEpochFromEnvironment() { return ReadSourceDateEpoch().first; }

std::optional<std::string> SourceDateEpochProblem() { return ReadSourceDateEpoch().second; }

void WriteCycloneDx(std::ostream& out, const std::vector<AuditResult>& results, const ReportContext& context,
                    const CycloneDxOptions& options) {
  BomNames names;
  boost::json::array components;
  boost::json::array vulnerabilities;
  for (const AuditResult& result : results) {
    Built built = ArtifactComponent(result, context, options, names);
    components.push_back(std::move(built.component));
    for (boost::json::value& v : built.vulnerabilities) vulnerabilities.push_back(std::move(v));
  }
  WriteBom(out, std::move(components), std::move(vulnerabilities), {}, context, options);
}

void WriteChainCycloneDx(std::ostream& out, const ChainRun& run, const ReportContext& context,
                         const CycloneDxOptions& options) {
  // The newest round is the component; every round before it, in history order, its pedigree.
  BomNames names;
  boost::json::array components;
  boost::json::array vulnerabilities;
  std::map<std::size_t, std::string> refs;
  boost::json::array rounds;
  for (const std::size_t node : run.history) {
    Built built = RoundComponent(run, node, context, options, names);
    refs.emplace(node, std::string(built.component.at("bom-ref").as_string()));
    for (boost::json::value& v : built.vulnerabilities) vulnerabilities.push_back(std::move(v));
    rounds.push_back(std::move(built.component));
  }
  if (!rounds.empty()) {
    boost::json::object newest = std::move(rounds.back().as_object());
    rounds.pop_back();
    if (!rounds.empty()) newest["pedigree"] = {{"ancestors", std::move(rounds)}};
    components.push_back(std::move(newest));
  }
  // The chain's own security findings, on the round they are about (else the newest round).
  for (const ChainFinding& f : run.findings) {
    if (!f.finding.rule->security) continue;
    std::optional<std::string> affects;
    if (auto it = f.node ? refs.find(*f.node) : refs.end(); it != refs.end()) {
      affects = it->second;
    } else if (!run.history.empty()) {
      affects = refs.at(run.history.back());
    }
    vulnerabilities.push_back(Vulnerability(f.finding, affects, names.finding_number));
  }
  const int exit_code = ChainExitCode(run, context.threshold);
  boost::json::array chain{Property("chain-verdict", exit_code == 0   ? "pass"
                                                     : exit_code == 1 ? "fail"
                                                                      : "error"),
                           Property("rounds", std::to_string(run.history.size())),
                           Property("chain-findings", std::to_string(run.findings.size()))};
  WriteBom(out, std::move(components), std::move(vulnerabilities), std::move(chain), context, options);
}

}  // namespace ckpt::reports
