#include "lib/findings/finding.h"

#include <algorithm>
#include <tuple>

namespace ckpt {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSchemaVersionMismatch:
      return "SCHEMA_VERSION_MISMATCH";
    case Code::kCheckpointIntegrity:
      return "CHECKPOINT_INTEGRITY";
    case Code::kResidencyViolation:
      return "RESIDENCY_VIOLATION";
    case Code::kArtifactInvalid:
      return "ARTIFACT_INVALID";
    case Code::kChainIntegrity:
      return "CHAIN_INTEGRITY";
  }
  return "CHECKPOINT_INTEGRITY";
}

std::optional<Severity> ParseSeverity(std::string_view text) {
  if (text == "note") return Severity::kNote;
  if (text == "warning") return Severity::kWarning;
  if (text == "error") return Severity::kError;
  return std::nullopt;
}

std::vector<DroppedFindings> FindingSink::dropped() const {
  std::vector<DroppedFindings> out;
  for (const auto& [key, counts] : per_file_) {
    if (counts.second > 0) out.push_back({key.first, key.second, counts.second});
  }
  std::sort(out.begin(), out.end(), [](const DroppedFindings& a, const DroppedFindings& b) {
    return std::tie(a.rule->id, a.file) < std::tie(b.rule->id, b.file);
  });
  return out;
}

void MergeDropped(std::vector<DroppedFindings>& into, const std::vector<DroppedFindings>& extra) {
  for (const DroppedFindings& d : extra) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const DroppedFindings& x) { return x.rule == d.rule && x.file == d.file; });
    if (it == into.end()) {
      into.push_back(d);
    } else {
      it->count += d.count;
    }
  }
  std::sort(into.begin(), into.end(), [](const DroppedFindings& a, const DroppedFindings& b) {
    return std::tie(a.rule->id, a.file) < std::tie(b.rule->id, b.file);
  });
}

}  // namespace ckpt
