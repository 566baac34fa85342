// What one artifact's audit produced: the model, the findings (root causes first) and the
// tool's own failures. Produced by the engine (engine/audit.h), read by reports.
#pragma once

#include <string>
#include <vector>

#include "lib/artifact/artifact.h"
#include "lib/findings/finding.h"

namespace ckpt {

struct AuditResult {
  Artifact artifact;
  std::vector<Finding> findings;         ///< root causes first (Tier), then by file and position
  std::vector<DroppedFindings> dropped;  ///< counted, not kept: repeats past the per-file cap, --max-findings
  std::vector<std::string> tool_errors;  ///< the tool could not finish (I/O failure): exit 2
};

}  // namespace ckpt
