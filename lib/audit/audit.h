// Audits one artifact: reads it through an ArtifactSource, recomputes its content hash,
// runs every rule of the catalog and returns the findings in a stable order.
#pragma once

#include <string>
#include <vector>

#include "lib/artifact/artifact.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

struct AuditResult {
  Artifact artifact;
  std::vector<Finding> findings;         ///< root causes first (Tier), then by file and position
  std::vector<DroppedFindings> dropped;  ///< counted, not kept: repeats past the per-file cap, --max-findings
  std::vector<std::string> tool_errors;  ///< the tool could not finish (I/O failure): exit 2
};

/// Reads the artifact that `source` exposes into the model (layout, header, index, weight
/// structure) without hashing or running the catalog's checks. Weight files stay open.
/// Reader findings go to `sink`; I/O failures of the tool to `tool_errors`.
Artifact LoadArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy,
                      FindingSink& sink, std::vector<std::string>& tool_errors);

/// Checks, after the last read, that every admitted name still resolves to the identity it
/// had when admitted (device, inode, size, mtime, ctime); sets AdmittedFile::change if not.
void VerifyAdmittedFiles(Artifact& artifact, const ArtifactSource& source);

/// Whether the weight files stay open after an audit (ckpt-diff reads the bytes again).
enum class KeepFiles { kClose, kOpen };

/// Audits the artifact that `source` exposes; `display_path` names it in reports. Weight
/// files are closed when it returns unless `keep` says otherwise.
AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy,
                          KeepFiles keep = KeepFiles::kClose);

/// Opens `path` as a directory and audits it. A path that cannot be opened is a tool error.
AuditResult AuditPath(const std::string& path, const Policy& policy, KeepFiles keep = KeepFiles::kClose);

}  // namespace ckpt
