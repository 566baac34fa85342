#include "engine/audit.h"

#include <algorithm>
#include <thread>
#include <tuple>

#include "lib/artifact/loader.h"
#include "lib/formats/layout.h"
#include "lib/hashing/content_hash.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

int FileRank(const std::string& file) {
  if (file == kHeaderFileName) return 0;
  if (file == kShardIndexFileName) return 1;
  if (IsWeightFileName(file)) return 2;
  return 3;
}

void SortFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    auto key = [](const Finding& f) {
      const Location& l = f.location;
      return std::tuple(static_cast<int>(f.rule->tier), FileRank(l.file), l.file, l.line.value_or(0),
                        l.column.value_or(0), l.byte_offset.value_or(0));
    };
    return key(a) < key(b);
  });
}

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

// Each weight file's SHA-256 over its whole length, into the matching AdmittedFile. A read
// that fails leaves the digest out: the identity check reports a file that changed.
void DigestWeightFiles(Artifact& artifact) {
  std::vector<std::byte> buffer(1 << 20);
  for (const WeightFile& wf : artifact.weights) {
    if (!wf.file) continue;
    Sha256 hash;
    bool ok = true;
    for (std::uint64_t at = 0; at < wf.size && ok;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), wf.size - at));
      ok = wf.file->ReadAt(at, std::span(buffer).first(n)).has_value();
      if (ok) hash.Update(std::span(buffer).first(n));
      at += n;
    }
    if (!ok) continue;
    const std::string digest = hash.FinalHex();
    for (AdmittedFile& f : artifact.files) {
      if (f.name == wf.name) f.sha256 = digest;
    }
  }
}

// Reader diagnostics become findings under their rules as they arrive, so the per-rule
// cap bounds memory while reading.
class RuleSink final : public DiagnosticSink {
 public:
  explicit RuleSink(FindingSink& findings) : findings_(findings) {}
  void Report(Diag kind, Location location, std::string message) override {
    findings_.Report(rules::RuleForDiagnostic(kind), std::move(location), std::move(message));
  }

 private:
  FindingSink& findings_;
};

}  // namespace

AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy,
                          KeepFiles keep) {
  AuditResult result;
  FindingSink sink;
  RuleSink reader_sink(sink);
  result.artifact = LoadArtifact(display_path, source, policy, reader_sink, result.tool_errors);
  Artifact& artifact = result.artifact;
  if (artifact.entries.empty() && !result.tool_errors.empty()) return result;

  // SARIF wants each weight file's SHA-256: computed beside the content hash, on another
  // core, from the same admitted descriptors (no second open, and the identity checks
  // below cover both reads).
  std::thread digests;
  if (policy.digest_files && policy.compute_hash) digests = std::thread([&artifact] { DigestWeightFiles(artifact); });
  if (!policy.compute_hash) {
    artifact.hash_not_computed_reason = "not recomputed (--no-hash)";
  } else {
    PlanOrReason plan = BuildHashPlan(artifact);
    if (!plan.plan) {
      artifact.hash_not_computed_reason = "not computable: " + plan.reason;
    } else if (auto hash = ComputeContentHash(*plan.plan); !hash) {
      if (hash.error().value() == kFileChangedErrno) {
        artifact.hash_not_computed_reason = "not computed: a weight file changed while being read";
      } else {
        result.tool_errors.push_back(Describe("cannot read tensor data of " + display_path, hash.error()));
        artifact.hash_not_computed_reason = "not computed: read error";
      }
    } else {
      artifact.computed_hash = std::move(*hash);
    }
  }
  if (digests.joinable()) digests.join();
  // The last read is done: every admitted name must still be the file that was read.
  for (WeightFile& wf : artifact.weights) wf.file->Release();
  VerifyAdmittedFiles(artifact, source);

  for (const rules::RuleEntry& rule : rules::AllRules()) {
    if (rule.check != nullptr) rule.check(artifact, sink);
  }
  result.findings = std::move(sink.findings());
  result.dropped = sink.dropped();
  SortFindings(result.findings);
  if (policy.max_findings > 0 && result.findings.size() > policy.max_findings) {
    std::vector<DroppedFindings> cut;
    for (std::size_t i = policy.max_findings; i < result.findings.size(); ++i) {
      MergeDropped(cut, {{result.findings[i].rule, result.findings[i].location.file, 1}});
    }
    result.findings.resize(policy.max_findings);
    MergeDropped(result.dropped, cut);
  }
  // The audit is over: release descriptors so a run over thousands of artifacts cannot run out.
  if (keep == KeepFiles::kClose) {
    for (WeightFile& wf : artifact.weights) wf.file.reset();
  }
  return result;
}

AuditResult AuditPath(const std::string& path, const Policy& policy, KeepFiles keep) {
  auto source = DirectorySource::OpenDirectory(path);
  if (!source) {
    AuditResult result;
    result.artifact.path = path;
    result.artifact.policy = policy;
    result.tool_errors.push_back(Describe("cannot open artifact directory " + path, source.error()));
    return result;
  }
  return AuditArtifact(path, **source, policy, keep);
}

}  // namespace ckpt
