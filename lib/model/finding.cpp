#include "lib/model/finding.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "lib/core/text.h"

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

// Sorting, then folding neighbours: O(n log n) however many entries either side holds
// (--max-findings can cut hundreds of thousands of findings at once).
void MergeDropped(std::vector<DroppedFindings>& into, const std::vector<DroppedFindings>& extra) {
  into.insert(into.end(), extra.begin(), extra.end());
  std::sort(into.begin(), into.end(), [](const DroppedFindings& a, const DroppedFindings& b) {
    return std::tie(a.rule->id, a.file) < std::tie(b.rule->id, b.file);
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < into.size(); ++i) {
    if (kept > 0 && into[kept - 1].rule == into[i].rule && into[kept - 1].file == into[i].file) {
      into[kept - 1].count += into[i].count;
    } else {
      if (kept != i) into[kept] = std::move(into[i]);  // never a self-move
      ++kept;
    }
  }
  into.resize(kept);
}

}  // namespace ckpt

namespace ckpt {

std::string_view InputKindName(InputKind kind) {
  static constexpr std::array<std::string_view, kAllInputKinds.size()> kNames = {
#define CKPT_INPUT_KIND_NAME(Name, json) json,
      CKPT_INPUT_KINDS(CKPT_INPUT_KIND_NAME)
#undef CKPT_INPUT_KIND_NAME
  };
  return kNames.at(static_cast<std::size_t>(kind));
}

std::optional<InputKind> InputKindFromName(std::string_view name) {
  for (InputKind kind : kAllInputKinds) {
    if (InputKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string InputKindSuggestion(std::string_view name) {
  std::vector<std::string> names;
  names.reserve(kAllInputKinds.size());
  for (InputKind kind : kAllInputKinds) names.emplace_back(InputKindName(kind));
  return DidYouMean(name, names);
}

}  // namespace ckpt
