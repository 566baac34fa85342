#include "lib/findings/finding.h"

namespace ckpt {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSchemaVersionMismatch: return "SCHEMA_VERSION_MISMATCH";
    case Code::kCheckpointIntegrity: return "CHECKPOINT_INTEGRITY";
    case Code::kResidencyViolation: return "RESIDENCY_VIOLATION";
    case Code::kArtifactInvalid: return "ARTIFACT_INVALID";
    case Code::kChainIntegrity: return "CHAIN_INTEGRITY";
  }
  return "CHECKPOINT_INTEGRITY";
}

std::optional<Severity> ParseSeverity(std::string_view text) {
  if (text == "note") return Severity::kNote;
  if (text == "warning") return Severity::kWarning;
  if (text == "error") return Severity::kError;
  return std::nullopt;
}

}  // namespace ckpt
