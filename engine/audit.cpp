#include "engine/audit.h"

#include <algorithm>
#include <functional>

#include "engine/audit_facts.h"
#include "engine/gate.h"
#include "lib/core/parallel.h"
#include "lib/core/text.h"
#include "lib/digest/content_hash.h"
#include "lib/digest/whole_file_digest.h"
#include "lib/formats/format_table.h"
#include "lib/formats/layout.h"
#include "lib/io/directory_source.h"
#include "lib/load/input.h"
#include "lib/load/loader.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

// Reader diagnostics become findings under their rules as they arrive, so the per-rule
// cap bounds memory while reading.
using rules::RuleSink;

}  // namespace

bool DigestSessionFileWith(AuditSession& session, const WeightFile& wf,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& also,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& behind, bool whole) {
  Artifact& artifact = session.result.artifact;
  auto admitted = AdmittedByName(artifact);
  auto found = admitted.find(wf.name);
  if (!wf.file || found == admitted.end()) return false;
  RuleSink crc_sink(session.sink);
  const WindowSink behind_sink = behind;
  return DigestWholeFile(*wf.file, wf.size, *found->second, wf.pending_crcs, &crc_sink, true, &also,
                         behind ? &behind_sink : nullptr, whole);
}

void DigestSessionFiles(AuditSession& session) {
  RuleSink crc_sink(session.sink);
  DigestWeightFiles(session.result.artifact, &crc_sink);
}

void RecordContentHash(AuditSession& session, const IoResult<std::string>& hash) {
  Artifact& artifact = session.result.artifact;
  if (hash) {
    artifact.computed_hash = *hash;
  } else if (hash.error().value() == kFileChangedErrno) {
    artifact.hash_not_computed_reason = "not computed: a weight file changed while being read";
  } else {
    session.result.tool_errors.push_back(Describe("cannot read tensor data of " + artifact.path, hash.error()));
    artifact.hash_not_computed_reason = "not computed: read error";
  }
}

namespace {

// Loads the input `source` exposes into `session` (whose sink may already hold the
// container's diagnostics) and plans its content hash.
void LoadInto(AuditSession& session, const std::string& display_path, const ArtifactSource& source, InputKind kind) {
  session.source = &source;
  RuleSink reader_sink(session.sink);
  session.result.artifact =
      LoadArtifact(display_path, source, session.policy, reader_sink, session.result.tool_errors, kind);
  const Artifact& artifact = session.result.artifact;
  session.unreadable = artifact.entries.empty() && !session.result.tool_errors.empty();
  const bool lensemble = InputKinds::Lensemble().Has(kind);
  if (!session.unreadable && session.policy.compute_hash && lensemble) {
    PlanOrReason plan = BuildHashPlan(artifact);
    if (plan.plan) {
      session.plan = std::move(plan.plan);
    } else {
      session.result.artifact.hash_not_computed_reason = "not computable: " + plan.reason;
    }
  } else if (!session.policy.compute_hash && lensemble) {
    session.result.artifact.hash_not_computed_reason = "not recomputed (--no-hash)";
  }
}

}  // namespace

std::unique_ptr<AuditSession> BeginAudit(const std::string& display_path, const ArtifactSource& source,
                                         const AuditOptions& policy, InputKind kind) {
  auto session = std::make_unique<AuditSession>();
  session->policy = policy;
  LoadInto(*session, display_path, source, kind);
  return session;
}

std::unique_ptr<AuditSession> BeginAuditPath(const std::string& path, const AuditOptions& policy,
                                             const SourceWrapper& wrap) {
  auto session = std::make_unique<AuditSession>();
  session->policy = policy;
  Artifact& artifact = session->result.artifact;
  artifact.path = path;
  artifact.policy = policy;
  RuleSink reader_sink(session->sink);
  // A shard of a folder audited whole in this run is not alone: that finding is dropped.
  class WithoutShardAlone final : public DiagnosticSink {
   public:
    explicit WithoutShardAlone(DiagnosticSink& inner) : inner_(inner) {}
    void Report(Diag kind, Location location, std::string message) override {
      if (kind != Diag::kInputShardAlone) inner_.Report(kind, std::move(location), std::move(message));
    }

   private:
    DiagnosticSink& inner_;
  } part_sink(reader_sink);
  DiagnosticSink& open_sink = policy.shard_of_audited_folder ? static_cast<DiagnosticSink&>(part_sink) : reader_sink;
  OpenedInput input = OpenInputPath(path, open_sink, policy.remote, policy.excluded_outputs);
  artifact.kind = input.kind;
  // A remote input is named by its redacted URL (hf://ORG/NAME@COMMIT) everywhere.
  const std::string shown = input.display_path.empty() ? path : input.display_path;
  artifact.path = shown;
  if (input.tool_error) {
    session->result.tool_errors.push_back(*input.tool_error);
    session->unreadable = true;
    return session;
  }
  session->remote_facts = input.remote_facts;
  if (!input.source) {  // refused by content (compressed, unknown, not yet analysed): its finding says why
    session->refused = true;
    return session;
  }
  session->owned_source = std::move(input.source);
  if (wrap) {
    std::string refusal;
    session->owned_source = wrap(std::move(session->owned_source), refusal);
    if (!refusal.empty()) {
      session->result.tool_errors.push_back(refusal);
      session->unreadable = true;
      return session;
    }
  }
  session->remote = input.remote;
  LoadInto(*session, shown, *session->owned_source, input.kind);
  session->result.artifact.excluded = std::move(input.excluded);
  if (input.container) session->result.artifact.container = std::pair(input.container->name, input.container->size);
  return session;
}

AuditResult FinishAudit(AuditSession& session) {
  AuditResult& result = session.result;
  if (session.unreadable) {
    if (session.remote_facts) RecordRemoteFacts(result.artifact, *session.remote_facts, session.remote);
    return std::move(result);
  }
  if (session.refused) {
    if (session.remote_facts) RecordRemoteFacts(result.artifact, *session.remote_facts, nullptr);
    result.findings = std::move(session.sink.findings());
    result.dropped = session.sink.dropped();
    if (session.policy.gate != nullptr)
      ApplyGateToAudit(*session.policy.gate, result.artifact, result.findings, result.dropped, result.artifact.path);
    return std::move(result);
  }
  Artifact& artifact = result.artifact;
  const AuditOptions& policy = session.policy;
  // The last read is done: every admitted name must still be the file that was read.
  for (WeightFile& wf : artifact.weights) wf.file->Release();
  VerifyAdmittedFiles(artifact, *session.source);
  if (session.remote_facts) RecordRemoteFacts(artifact, *session.remote_facts, session.remote);

  FindingSink& sink = session.sink;
  const InputFormat& format = FormatOf(artifact.kind);
  const bool holds_pickles = format.pickle_family || format.holds_other_formats;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    const bool applies = rule.info->inputs.Has(artifact.kind) || (rule.info->pickle_inputs && holds_pickles);
    if (rule.check != nullptr && applies) rule.check(artifact, sink);
  }
  result.findings = std::move(sink.findings());
  result.dropped = sink.dropped();
  LocateInFilesRoot(artifact, result.findings);
  if (policy.gate != nullptr) ApplyGateToAudit(*policy.gate, artifact, result.findings, result.dropped, artifact.path);
  SortFindings(result.findings);
  if (policy.max_findings > 0 && result.findings.size() > policy.max_findings) {
    std::vector<DroppedFindings> cut;
    for (std::size_t i = policy.max_findings; i < result.findings.size(); ++i) {
      cut.push_back({result.findings[i].rule, result.findings[i].location.file, 1});
    }
    result.findings.resize(policy.max_findings);
    MergeDropped(result.dropped, cut);  // folds the ones into counts per rule and file
  }
  // The audit is over: release descriptors so a run over thousands of artifacts cannot run out.
  for (WeightFile& wf : artifact.weights) wf.file.reset();
  return std::move(result);
}

namespace {

// The middle phase of a whole audit: the content hash, and (SARIF) each weight file's
// SHA-256 beside it on another core, from the same admitted descriptors (no second open,
// and the identity checks cover both reads).
AuditResult HashAndFinish(AuditSession& session) {
  if (!session.unreadable && !session.refused) {
    Artifact& artifact = session.result.artifact;
    // Inputs without a content hash (a safetensors file, a model folder) are hashed as files.
    const bool lensemble = InputKinds::Lensemble().Has(artifact.kind);
    // A round in an hf:// repository is hashed file by file too: the listing names each digest.
    const bool hub = session.remote_facts && session.remote_facts->scheme == "hf";
    const bool digests_wanted = session.policy.digest_files || !lensemble || hub;
    if (session.plan && digests_wanted) {
      // One read: the weight files' digests come from the content hash's own windows; a
      // file whose bytes the hash does not visit in order is read again afterwards.
      std::vector<FileDigestRequest> requests = WeightDigestRequests(artifact);
      RecordContentHash(session, ComputeContentHash(*session.plan, requests, 1 << 20, session.policy.overlap_reads));
      RecordDigests(artifact, requests);
      DigestWeightFiles(artifact);  // only those still without a digest
    } else {
      auto digest_files = [&artifact, &session] {
        RuleSink crc_sink(session.sink);
        DigestWeightFiles(artifact, &crc_sink);
        if (artifact.kind == InputKind::kModelFolder) {
          DigestOtherFiles(artifact, *session.source, session.remote != nullptr);
        }
      };
      // The digests beside the content hash on another core (when reads overlap), else first.
      const bool digests = digests_wanted && session.policy.compute_hash;
      ParallelFor(2, digests && session.policy.overlap_reads ? 2 : 1, [&](std::size_t part) {
        if (part == 0 && digests) digest_files();
        if (part == 1 && session.plan) {
          RecordContentHash(session, ComputeContentHash(*session.plan, {}, 1 << 20, session.policy.overlap_reads));
        }
      });
    }
  }
  return FinishAudit(session);
}

}  // namespace

AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const AuditOptions& policy) {
  return HashAndFinish(*BeginAudit(display_path, source, policy));
}

AuditResult AuditPath(const std::string& path, const AuditOptions& policy) {
  return HashAndFinish(*BeginAuditPath(path, policy));
}

AuditResult AuditPathThrough(const std::string& path, const AuditOptions& policy, const SourceWrapper& wrap) {
  return HashAndFinish(*BeginAuditPath(path, policy, wrap));
}

}  // namespace ckpt
