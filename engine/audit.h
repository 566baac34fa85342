// The audit engine for one artifact: reads it (lib/artifact/loader.h), recomputes its
// content hash, runs every rule of the catalog and returns the findings in a stable order.
#pragma once

#include <string>
#include <vector>

#include "lib/artifact/audit_result.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

/// Whether the weight files stay open after an audit (ckpt-diff reads the bytes again).
enum class KeepFiles { kClose, kOpen };

/// Audits the artifact that `source` exposes; `display_path` names it in reports. Weight
/// files are closed when it returns unless `keep` says otherwise.
AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy,
                          KeepFiles keep = KeepFiles::kClose);

/// Opens `path` as a directory and audits it. A path that cannot be opened is a tool error.
AuditResult AuditPath(const std::string& path, const Policy& policy, KeepFiles keep = KeepFiles::kClose);

}  // namespace ckpt
