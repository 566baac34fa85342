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
  std::vector<Finding> findings;         ///< sorted by file, then position
  std::vector<std::string> tool_errors;  ///< the tool could not finish (I/O failure): exit 2
};

/// Audits the artifact that `source` exposes; `display_path` names it in reports.
AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy);

/// Opens `path` as a directory and audits it. A path that cannot be opened is a tool error.
AuditResult AuditPath(const std::string& path, const Policy& policy);

}  // namespace ckpt
