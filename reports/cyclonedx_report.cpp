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

// What a user calls the input: org/name for hf://, else the folder's or file's own name.
std::string ComponentName(const Artifact& a) {
  if (a.remote && a.remote->scheme == "hf") {
    std::string rest = a.path.substr(5);  // hf://
    rest = rest.substr(0, rest.find('@'));
    return rest;
  }
  std::string path = a.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::string name = std::filesystem::path(path).filename().string();
  return name.empty() || name == "." ? std::filesystem::absolute(path).lexically_normal().filename().string() : name;
}

// A bom-ref that names the input the same way from any machine: its path relative to the
// source root (never absolute; a URL as given) and the start of the value it is pinned by.
std::string BomRef(const Artifact& a, const std::string& source_root, const std::optional<std::string>& pin) {
  std::string where = a.path;
  if (!remote::IsRemoteArgument(a.path)) {
    std::error_code ec;
    const std::filesystem::path base =
        source_root.empty() ? std::filesystem::current_path(ec) : std::filesystem::absolute(source_root, ec);
    where = std::filesystem::absolute(a.path, ec)
                .lexically_normal()
                .lexically_relative(base.lexically_normal())
                .generic_string();
    if (where.empty()) where = std::filesystem::path(a.path).filename().generic_string();
    while (where.size() > 1 && where.back() == '/') where.pop_back();
  }
  if (where.empty()) where = ".";
  return "ckpt-audit:" + BoundedText(where) + "@" + (pin ? pin->substr(0, 16) : std::string("unhashed"));
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

Counts CountOf(const AuditResult& result) {
  Counts c;
  auto add = [&c](Severity severity, bool counts, std::uint64_t n) {
    if (!counts) {
      c.accepted += n;
    } else if (severity == Severity::kError) {
      c.errors += n;
    } else if (severity == Severity::kWarning) {
      c.warnings += n;
    } else {
      c.notes += n;
    }
  };
  for (const Finding& f : result.findings) add(f.severity(), f.counts(), 1);
  for (const DroppedFindings& d : result.dropped) add(d.severity(), d.counts(), d.count);
  return c;
}

struct Built {
  boost::json::object component;
  boost::json::array vulnerabilities;
};

Built ArtifactComponent(const AuditResult& result, const ReportContext& context, const CycloneDxOptions& options,
                        std::size_t& finding_number) {
  const Artifact& a = result.artifact;
  const Artifact::PinTarget pin = a.PinnedValue();
  const std::string ref = BomRef(a, options.source_root, pin.value);
  Built built;
  boost::json::object& c = built.component;
  c["type"] = "machine-learning-model";
  c["bom-ref"] = ref;
  c["name"] = BoundedText(ComponentName(a));
  const bool hub = a.remote && a.remote->scheme == "hf";
  if (a.header && a.header->content_hash) {
    c["version"] = *a.header->content_hash;
  } else if (hub && a.remote->commit) {
    c["version"] = *a.remote->commit;
  } else if (pin.value) {
    c["version"] = *pin.value;
  }
  if (pin.value) c["hashes"] = boost::json::array{{{"alg", "SHA-256"}, {"content", *pin.value}}};
  if (hub && a.remote->commit) c["purl"] = "pkg:huggingface/" + ComponentName(a) + "@" + *a.remote->commit;

  // Every file, by the name the report gives it: weights are data, the rest files.
  boost::json::array files;
  std::map<std::string, std::string> file_refs;
  std::set<std::string> weights;
  for (const WeightFile* wf : a.ListedWeightFiles()) weights.insert(wf->name);
  for (const AdmittedFile& f : a.files) {
    const std::string name = f.name.empty() ? ComponentName(a) : f.name;
    const std::string file_ref = ref + "/" + BoundedText(name);
    if (!file_refs.emplace(f.name, file_ref).second) continue;
    boost::json::object file{
        {"type", weights.count(f.name) != 0 ? "data" : "file"}, {"bom-ref", file_ref}, {"name", BoundedText(name)}};
    boost::json::array properties{Property("size", std::to_string(f.identity.size))};
    if (f.sha256) {
      file["hashes"] = boost::json::array{{{"alg", "SHA-256"}, {"content", *f.sha256}}};
    } else {
      properties.push_back(Property("hash-not-verified", "true"));  // nothing invented
    }
    file["properties"] = std::move(properties);
    files.push_back(std::move(file));
  }
  if (!files.empty()) c["components"] = std::move(files);

  // Where it comes from: a Lensemble round's parent, named by its content hash.
  if (a.header && a.header->parent_hash) {
    c["pedigree"] = {
        {"ancestors", boost::json::array{{{"type", "machine-learning-model"},
                                          {"name", BoundedText(ComponentName(a))},
                                          {"version", *a.header->parent_hash},
                                          {"hashes", boost::json::array{{{"alg", "SHA-256"},
                                                                         {"content", *a.header->parent_hash}}}}}}}};
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

  const Counts counts = CountOf(result);
  boost::json::array properties{Property("kind", std::string(InputKindName(a.kind))),
                                Property("verdict", std::string(VerdictName(VerdictOf(result, context.threshold)))),
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
  if (!pin.value) properties.push_back(Property("hash-not-verified", BoundedText(pin.not_computed_reason)));
  c["properties"] = std::move(properties);

  // Each security finding, on the file it is in (the input itself when it names none).
  for (const Finding& f : result.findings) {
    if (!f.rule->security) continue;
    auto file = file_refs.find(f.location.file);
    boost::json::object v{
        {"bom-ref", "ckpt-audit-finding-" + std::to_string(++finding_number)},
        {"id", std::string(f.rule->id)},
        {"source",
         {{"name", "ckpt-audit"}, {"url", std::string(CKPT_INFORMATION_URI) + "#" + std::string(f.rule->id)}}},
        {"ratings", boost::json::array{{{"severity", Rating(f.severity())}, {"method", "other"}}}},
        {"description", BoundedText(f.message)},
        {"affects", boost::json::array{{{"ref", file != file_refs.end() ? file->second : ref}}}}};
    if (f.suppression) {
      v["analysis"] = {{"state", "not_affected"},
                       {"detail", BoundedText((f.suppression->acceptance() ? "accepted: " : "in the baseline: ") +
                                              f.suppression->reason + " (until " + f.suppression->expires + ")")}};
    }
    built.vulnerabilities.push_back(std::move(v));
  }
  return built;
}

}  // namespace

std::optional<std::int64_t> SourceDateEpochFromEnvironment() {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::int64_t value = 0;
  const std::string_view view(text);
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (error != std::errc() || end != view.data() + view.size() || value < 0) return std::nullopt;
  return value;
}

void WriteCycloneDx(std::ostream& out, const std::vector<AuditResult>& results, const ReportContext& context,
                    const CycloneDxOptions& options) {
  std::size_t finding_number = 0;
  boost::json::array components;
  boost::json::array vulnerabilities;
  for (const AuditResult& result : results) {
    Built built = ArtifactComponent(result, context, options, finding_number);
    components.push_back(std::move(built.component));
    for (boost::json::value& v : built.vulnerabilities) vulnerabilities.push_back(std::move(v));
  }
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
  if (components.size() == 1) {
    metadata["component"] = std::move(components.front());
    bom["metadata"] = std::move(metadata);
  } else {
    bom["metadata"] = std::move(metadata);
    bom["components"] = std::move(components);
  }
  if (!vulnerabilities.empty()) bom["vulnerabilities"] = std::move(vulnerabilities);
  WritePrettyJson(out, bom, /*exact_bytes=*/false);
  out << "\n";
}

}  // namespace ckpt::reports
