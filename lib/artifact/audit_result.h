// What one artifact's audit produced: the model, the findings (root causes first) and the
// tool's own failures. Produced by the engine (engine/audit.h), read by reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/artifact/artifact.h"
#include "lib/findings/finding.h"
#include "lib/oms/signature_facts.h"

namespace ckpt {

struct AuditResult {
  Artifact artifact;
  std::vector<Finding> findings;         ///< root causes first (Tier), then by file and position
  std::vector<DroppedFindings> dropped;  ///< counted, not kept: repeats past the per-file cap, --max-findings
  std::vector<std::string> tool_errors;  ///< the tool could not finish (I/O failure): exit 2
  /// --verify-model-signature: what the model signature check established.
  std::optional<oms::ModelSignatureFacts> model_signature;
};

}  // namespace ckpt
