// The audit engine for one artifact: reads it (lib/load/loader.h), recomputes its
// content hash, runs every rule of the catalog and returns the findings in a stable order.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/digest/content_hash.h"
#include "lib/digest/whole_file_digest.h"  // the digests a fused pass records
#include "lib/io/artifact_source.h"
#include "lib/model/audit_result.h"
#include "lib/model/diagnostic.h"
#include "lib/remote/remote_source.h"

namespace ckpt {

/// Wraps the source an input path opened as (verify-then-load's hold reads every file through
/// its copy); setting `refusal` stops the audit with it as a tool error.
using SourceWrapper =
    std::function<std::unique_ptr<ArtifactSource>(std::unique_ptr<ArtifactSource> source, std::string& refusal)>;

/// Audits the artifact that `source` exposes; `display_path` names it in reports. Weight
/// files are closed when it returns.
AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const AuditOptions& policy);

/// Opens `path` as the input it is (inputs.md section 1: a Lensemble directory or tar, a
/// safetensors file, a model folder, or a refused file) and audits it. A path that cannot
/// be opened is a tool error.
AuditResult AuditPath(const std::string& path, const AuditOptions& policy);
/// AuditPath reading the input's files through `wrap`'s source.
AuditResult AuditPathThrough(const std::string& path, const AuditOptions& policy, const SourceWrapper& wrap);

/// An audit in phases, for callers that read the tensor bytes themselves (ckpt-diff's fused
/// pass): BeginAudit loads the artifact and plans its hash; the caller hashes (or not) and
/// records it with RecordContentHash; FinishAudit checks identities, runs the rules, sorts.
struct AuditSession {
  AuditResult result;
  FindingSink sink;
  const ArtifactSource* source = nullptr;
  std::unique_ptr<ArtifactSource> owned_source;     ///< BeginAuditPath's directory
  const remote::RemoteSource* remote = nullptr;     ///< a remote input's source (inside owned_source)
  std::optional<remote::RemoteFacts> remote_facts;  ///< a remote input's own facts, its counters live
  AuditOptions policy;
  std::optional<HashPlan> plan;  ///< the content hash's plan, when it is computable
  bool unreadable = false;       ///< nothing could be listed: no further phase
  bool refused = false;          ///< the input is no kind the audit reads: its finding is the result
};
std::unique_ptr<AuditSession> BeginAudit(const std::string& display_path, const ArtifactSource& source,
                                         const AuditOptions& policy, InputKind kind = InputKind::kLensemble);
std::unique_ptr<AuditSession> BeginAuditPath(const std::string& path, const AuditOptions& policy,
                                             const SourceWrapper& wrap = nullptr);
void RecordContentHash(AuditSession& session, const IoResult<std::string>& hash);
/// DigestWeightFiles for a session, its CRC-32 mismatches reported as its findings.
void DigestSessionFiles(AuditSession& session);
/// One read of the session's weight file `wf`: the CRC-32s it defers and `also` on the
/// reading thread, and on another its SHA-256 (into its AdmittedFile, when `whole`) and
/// `behind` (ckpt-convert copies on the first and hashes tensors on the second). False when
/// a read fails.
bool DigestSessionFileWith(AuditSession& session, const WeightFile& wf,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& also,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& behind, bool whole);
AuditResult FinishAudit(AuditSession& session);

/// The report order: root causes first (Tier), then header, index, weights, other files, and
/// by position in a file.
void SortFindings(std::vector<Finding>& findings);

}  // namespace ckpt
