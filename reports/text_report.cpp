#include "reports/text_report.h"

#include <algorithm>
#include <cstdio>

#include "lib/core/text.h"
#include "reports/json_report.h"

namespace ckpt::reports {
namespace {

struct Palette {
  bool on;
  std::string_view Paint(std::string_view code) const { return on ? code : ""; }
  std::string_view red() const { return Paint("\033[31m"); }
  std::string_view green() const { return Paint("\033[32m"); }
  std::string_view yellow() const { return Paint("\033[33m"); }
  std::string_view cyan() const { return Paint("\033[36m"); }
  std::string_view bold() const { return Paint("\033[1m"); }
  std::string_view dim() const { return Paint("\033[2m"); }
  std::string_view reset() const { return Paint("\033[0m"); }
  std::string_view For(Severity s) const {
    return s == Severity::kError ? red() : s == Severity::kWarning ? yellow() : cyan();
  }
};

std::string Short(const std::string& hash) { return EscapeForDisplay(hash.size() > 12 ? hash.substr(0, 12) : hash); }

}  // namespace

std::string FindingLine(const std::string& artifact_path, const Finding& f, bool color) {
  const Palette p{color};
  // A location in another file than the input's (a signed statement) names its own root.
  std::string location = FormatLocation(artifact_path, f.location);
  std::string line = location.empty() ? "" : EscapeForDisplay(location) + ": ";
  line += std::string(p.For(f.severity())) + std::string(SeverityName(f.severity())) + std::string(p.reset()) + ": " +
          EscapeForDisplay(f.message) + " [" + std::string(f.rule->id) + " " + std::string(CodeName(f.rule->code)) +
          "]";
  return line;
}

std::string AcceptedWhy(const Suppression& s) {
  if (!s.acceptance()) return "accepted until " + s.expires + ": " + EscapeForDisplay(s.reason);
  return "reviewed acceptance " + std::to_string(s.index + 1) + " of " + EscapeForDisplay(s.source) +
         " for the bytes with SHA-256 " + s.sha256 + ", until " + s.expires + ": " + EscapeForDisplay(s.reason);
}

void WriteFindingLines(std::ostream& out, const std::string& indent, const std::string& artifact_path,
                       const std::vector<Finding>& findings, bool color) {
  const Palette p{color};
  std::size_t suppressed = 0;
  std::size_t accepted = 0;
  for (const Finding& f : findings) {
    if (f.counts()) {
      out << indent << FindingLine(artifact_path, f, color) << "\n";
    } else {
      ++(f.suppression->acceptance() ? accepted : suppressed);
    }
  }
  auto list = [&](bool acceptances, std::size_t count, const char* heading) {
    if (count == 0) return;
    out << indent << count << (count == 1 ? " finding " : " findings ") << heading << ":\n";
    for (const Finding& f : findings) {
      if (f.counts() || f.suppression->acceptance() != acceptances) continue;
      // Plain text inside the dim span: the severity colour would undo it.
      out << indent << "  " << p.dim() << FindingLine(artifact_path, f, false) << " (" << AcceptedWhy(*f.suppression)
          << ")" << p.reset() << "\n";
    }
  };
  list(false, suppressed, "suppressed by the baseline");
  if (accepted == 0) return;
  // Grouped by acceptance: what it holds for is said once, its findings listed under it.
  std::vector<const Suppression*> acceptances;
  for (const Finding& f : findings) {
    if (!f.counts() && f.suppression->acceptance() &&
        std::find(acceptances.begin(), acceptances.end(), f.suppression.get()) == acceptances.end()) {
      acceptances.push_back(f.suppression.get());
    }
  }
  for (const Suppression* a : acceptances) {
    std::size_t count = 0;
    for (const Finding& f : findings)
      count += !f.counts() && f.suppression.get() == a ? std::size_t{1} : std::size_t{0};
    out << indent << count << (count == 1 ? " finding" : " findings") << " accepted by " << AcceptedWhy(*a) << ":\n";
    for (const Finding& f : findings) {
      if (f.counts() || f.suppression.get() != a) continue;
      out << indent << "  " << p.dim() << FindingLine(artifact_path, f, false) << p.reset() << "\n";
    }
  }
}

std::string DroppedLine(const DroppedFindings& d) {
  return "... and " + std::to_string(d.count) + " more " + std::string(d.rule->id) + " " +
         (d.count == 1 ? "finding" : "findings") + " in " + EscapeForDisplay(d.file.empty() ? "the artifact" : d.file) +
         ", not shown (at most " + std::to_string(FindingSink::kMaxPerRuleAndFile) +
         " per rule and file are kept, and --max-findings caps each artifact)";
}

std::string FormatNumber(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string FormatRelL2(const std::optional<double>& rel_l2) {
  return rel_l2 ? FormatNumber(*rel_l2) : "inf (A is zero)";
}
std::string FormatRelL2(const std::optional<double>& rel_l2, double l2) {
  return rel_l2 || l2 > 0 ? FormatRelL2(rel_l2) : "- (A is zero, nothing moved)";
}

std::string PadToColumns(std::string text, std::size_t width) {
  const auto columns = static_cast<std::size_t>(std::count_if(text.begin(), text.end(), StartsCodePoint));
  if (columns < width) text.append(width - columns, ' ');
  return text;
}

std::string ThresholdText(FailThreshold threshold) {
  if (!threshold) return "fail-on none: not gating, the exit status ignores findings";
  return "fail-on " + std::string(FailThresholdName(threshold));
}

std::string FormatLocation(const std::string& artifact_path, const Location& location) {
  std::string out = location.artifact.empty() ? artifact_path : location.artifact;
  if (!location.file.empty()) out += (out.empty() || out.back() == '/' ? "" : "/") + location.file;
  if (location.line) {
    out += ":" + std::to_string(*location.line) + ":" + std::to_string(location.column.value_or(1));
  } else if (location.byte_offset) {
    out += "@" + std::to_string(*location.byte_offset);
  }
  return out;
}

namespace {

constexpr std::size_t kListedLines = 100;  // files or tensors shown in text; JSON lists them all

// The files read (size, SHA-256 when hashed) and the tensors declared, each list cut at
// kListedLines with a line saying how many more the JSON report has.
void WriteInventory(std::ostream& out, const Artifact& a) {
  // A GGUF file's key/values (tokenizer arrays summarised by the reader).
  for (const WeightFile& wf : a.weights) {
    if (!wf.gguf || wf.gguf->version == 0) continue;
    out << "  gguf v" << wf.gguf->version << ", alignment " << wf.gguf->alignment;
    if (a.weights.size() > 1) out << "  " << EscapeForDisplay(wf.name);
    out << "\n";
    for (std::size_t i = 0; i < wf.gguf->metadata.size() && i < kListedLines; ++i) {
      const GgufFacts::Entry& e = wf.gguf->metadata[i];
      out << "    " << EscapeForDisplay(e.key) << " (" << e.type << ") = " << EscapeForDisplay(e.value) << "\n";
    }
    const std::uint64_t more = (wf.gguf->metadata.size() > kListedLines ? wf.gguf->metadata.size() - kListedLines : 0) +
                               wf.gguf->metadata_not_listed;
    if (more > 0) {
      out << "    ... and " << more << " more (--format json lists the first " << kMaxListedGgufMetadata << ")\n";
    }
  }
  if (!a.files.empty()) out << "  files\n";
  for (std::size_t i = 0; i < a.files.size() && i < kListedLines; ++i) {
    const AdmittedFile& f = a.files[i];
    out << "    " << (f.name.empty() ? EscapeForDisplay(a.path) : EscapeForDisplay(f.name)) << "  " << f.identity.size
        << " bytes";
    if (f.sha256) out << "  sha256 " << *f.sha256;
    out << "\n";
  }
  if (a.files.size() > kListedLines) {
    out << "    ... and " << a.files.size() - kListedLines << " more (--format json lists every file)\n";
  }
  std::size_t count = 0;
  const std::vector<const WeightFile*> listed = a.ListedWeightFiles();
  for (const WeightFile* weight_file : listed) {
    const WeightFile& wf = *weight_file;
    for (const StoredTensor& t : wf.tensors) {
      if (!t.complete) continue;
      if (count == 0) out << "  tensors\n";
      if (count++ >= kListedLines) continue;
      out << "    " << EscapeForDisplay(t.name) << "  " << EscapeForDisplay(t.dtype) << " [";
      for (std::size_t d = 0; d < t.shape.size(); ++d) out << (d ? ", " : "") << t.shape[d];
      out << "]";
      if (t.conj) out << " (conjugate bit)";
      if (t.neg) out << " (negative bit)";
      if (listed.size() > 1) out << "  " << EscapeForDisplay(wf.name);
      out << "\n";
    }
  }
  if (count > kListedLines) {
    out << "    ... and " << count - kListedLines << " more (--format json lists every tensor)\n";
  }
}

}  // namespace

namespace {

// What the report says about an input besides its findings, one fact an item: its kind, where
// it came from, its schema version, its content hash and what a pin was compared with.
std::vector<std::string> InputFacts(const AuditResult& r) {
  const Artifact& a = r.artifact;
  std::vector<std::string> facts;
  std::string kind = "kind " + std::string(InputKindName(a.kind));
  if (a.container) kind += " (" + std::to_string(a.container->second) + " bytes)";
  if (a.remote) {
    kind += " (remote: " + std::to_string(a.remote->bytes_transferred) + " bytes in " +
            std::to_string(a.remote->requests) + " requests)";
    if (a.remote->listed && !*a.remote->listed) kind += ", directory not listed";
  }
  facts.push_back(std::move(kind));
  if (r.model_signature) facts.push_back("model signature: " + ModelSignatureLine(*r.model_signature));
  if (a.remote && a.remote->commit) {
    facts.push_back("commit " + *a.remote->commit + " (" + EscapeForDisplay(a.remote->revision.value_or("main")) + ")");
  }
  const bool lensemble = InputKinds::Lensemble().Has(a.kind);
  if (a.header && a.header->schema_version) {
    std::string version = "schema_version " + std::to_string(*a.header->schema_version);
    if (a.header->migrated_version && a.header->migrated_version != *a.header->schema_version) {
      version += " (migrated to " + std::to_string(a.header->migrated_version) + ")";
    }
    facts.push_back(std::move(version));
  }
  const std::optional<std::string>* declared = a.header ? &a.header->content_hash : nullptr;
  if (a.computed_hash) {
    std::string hash = "content_hash " + *a.computed_hash + " (recomputed";
    if (declared && declared->has_value()) {
      hash += **declared == *a.computed_hash ? ", matches header.json" : ", header.json declares " + Short(**declared);
    }
    facts.push_back(hash + ")");
  } else if (lensemble && r.tool_errors.empty() && !a.entries.empty()) {
    facts.push_back("content_hash " + EscapeForDisplay(a.hash_not_computed_reason));
  }
  if (a.policy.expected_hash && !lensemble) {
    // What the pin was compared with (a Lensemble pin is the content hash above).
    const Artifact::PinTarget target = a.PinnedValue();
    facts.push_back("--expect-hash compared with the " + std::string(target.what) + " " +
                    (target.value ? *target.value : EscapeForDisplay(target.not_computed_reason)));
  }
  return facts;
}

std::string VerdictText(const Palette& p, Verdict verdict) {
  return std::string(verdict == Verdict::kPass ? p.green() : p.red()) +
         (verdict == Verdict::kPass   ? "PASS"
          : verdict == Verdict::kFail ? "FAIL"
                                      : "ERROR") +
         std::string(p.reset());
}

std::string CountsText(const AuditResult& r) {
  if (r.findings.empty()) return "";
  const SeverityCounts counts = CountFindings(r);
  return " (" + Plural(counts.errors, "error") + ", " + Plural(counts.warnings, "warning") + ", " +
         Plural(counts.notes, "note") + ")";
}

void WriteProblems(std::ostream& out, const std::string& indent, const AuditResult& r, const Palette& p, bool color) {
  WriteFindingLines(out, indent, r.artifact.path, r.findings, color);
  for (const DroppedFindings& d : r.dropped) out << indent << DroppedLine(d) << "\n";
  for (const std::string& e : r.tool_errors) {
    out << indent << (indent.empty() ? EscapeForDisplay(r.artifact.path) + ": " : std::string()) << p.red()
        << "tool error" << p.reset() << ": " << EscapeForDisplay(e) << "\n";
  }
}

}  // namespace

void WriteTextReport(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context) {
  const Palette p{context.color};
  std::size_t passed = 0, failed = 0, errored = 0;
  SeverityCounts total;
  std::vector<Verdict> verdicts;
  for (const AuditResult& r : results) {
    const Verdict verdict = VerdictOf(r, context.threshold);
    verdicts.push_back(verdict);
    const SeverityCounts counts = CountFindings(r);
    total.errors += counts.errors;
    total.warnings += counts.warnings;
    total.notes += counts.notes;
    (verdict == Verdict::kPass ? passed : verdict == Verdict::kFail ? failed : errored)++;
  }
  if (context.verbose) {
    // --verbose / --inventory: a block per input, its facts and inventory, then its findings.
    for (const AuditResult& r : results) {
      // What a verification checked, as cosign lists it: said even when it passes.
      if (!r.verification) continue;
      out << EscapeForDisplay(r.artifact.path) << ": checks performed with "
          << EscapeForDisplay(r.verification->envelope) << ":\n";
      for (const std::string& line : VerificationLines(*r.verification)) out << "  " << line << "\n";
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      const AuditResult& r = results[i];
      if (context.quiet && verdicts[i] == Verdict::kPass) continue;
      out << p.bold() << EscapeForDisplay(r.artifact.path) << p.reset() << ": " << VerdictText(p, verdicts[i])
          << CountsText(r) << "\n";
      for (const std::string& fact : InputFacts(r)) out << "  " << fact << "\n";
      if (r.verification) {
        out << "  checks performed with " << EscapeForDisplay(r.verification->envelope) << ":\n";
        for (const std::string& line : VerificationLines(*r.verification)) out << "    " << line << "\n";
      }
      if (!context.quiet) WriteInventory(out, r.artifact);
      WriteProblems(out, "  ", r, p, context.color);
    }
  } else {
    // Findings first, each line naming its file; then one line per input.
    for (std::size_t i = 0; i < results.size(); ++i) {
      const AuditResult& r = results[i];
      if (context.quiet && verdicts[i] == Verdict::kPass) {
        // --quiet keeps what a passing input warns about, one line each, and says when a
        // reviewed acceptance let findings pass (they are never hidden without a trace).
        std::size_t accepted = 0;
        for (const Finding& f : r.findings) {
          if (f.counts() && f.severity() >= Severity::kWarning)
            out << FindingLine(r.artifact.path, f, context.color) << "\n";
          if (!f.counts() && f.suppression->acceptance()) ++accepted;
        }
        if (accepted > 0) {
          out << EscapeForDisplay(r.artifact.path) << ": " << Plural(accepted, "finding")
              << " accepted by a reviewed acceptance (listed without --quiet)\n";
        }
        continue;
      }
      WriteProblems(out, "", r, p, context.color);
    }
    for (const AuditResult& r : results) {
      // What a verification checked, as cosign lists it: said even when it passes.
      if (!r.verification) continue;
      out << EscapeForDisplay(r.artifact.path) << ": checks performed with "
          << EscapeForDisplay(r.verification->envelope) << ":\n";
      for (const std::string& line : VerificationLines(*r.verification)) out << "  " << line << "\n";
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      const AuditResult& r = results[i];
      if (context.quiet && verdicts[i] == Verdict::kPass) continue;
      out << p.bold() << EscapeForDisplay(r.artifact.path) << p.reset() << ": " << VerdictText(p, verdicts[i])
          << CountsText(r);
      for (const std::string& fact : InputFacts(r)) out << "; " << fact;
      out << "\n";
    }
  }
  out << Plural(results.size(), "artifact") << ": " << passed << " passed, " << failed << " failed";
  if (errored) out << ", " << errored << " not audited";
  out << "; " << Plural(total.errors, "error") << ", " << Plural(total.warnings, "warning") << ", "
      << Plural(total.notes, "note") << " (" << ThresholdText(context.threshold) << "; " << context.tool_name << " "
      << context.version << (context.config_file ? "; config " + EscapeForDisplay(*context.config_file) : "") << ")\n";
}

}  // namespace ckpt::reports
