// Findings are data: every problem found in an artifact is a Finding that names its rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/// How serious a finding is; maps 1:1 to SARIF `level`. Ordered: a threshold keeps
/// everything at or above it.
enum class Severity {
  kNote,     ///< worth knowing, never a sign of damage (a policy in effect, a duplicate)
  kWarning,  ///< valid but not canonical, or suspicious without proof of damage
  kError,    ///< the artifact must not be trusted as it is
};

/// The spec's error codes (artifact-format.md section 7). Every finding carries one.
enum class Code {
  kSchemaVersionMismatch,
  kCheckpointIntegrity,
  kResidencyViolation,
  kArtifactInvalid,
  kChainIntegrity,
};

std::string_view SeverityName(Severity severity);  ///< "note", "warning", "error"
std::string_view CodeName(Code code);              ///< "CHECKPOINT_INTEGRITY", ...
std::optional<Severity> ParseSeverity(std::string_view text);

/// One rule of the catalog: stable id, code, default severity and its documentation.
struct RuleInfo {
  std::string_view id;           ///< lower-kebab, family prefix, never reused
  std::string_view name;         ///< PascalCase form of the id (SARIF `name`)
  Code code;
  Severity severity;
  std::string_view title;        ///< one line
  std::string_view explanation;  ///< one paragraph: what it means and why it matters
  std::string_view remediation;  ///< how to fix it
  bool security;                 ///< guards against tampering, code execution or residency breaches
};

/// Where a finding points. `file` is relative to the artifact root.
struct Location {
  std::string artifact;  ///< artifact root, for reports spanning several artifacts (chains); empty otherwise
  std::string file;
  std::optional<std::string> json_pointer;   ///< header.json / weights.index.json / safetensors header
  std::optional<std::uint64_t> line;         ///< JSON files: 1-based
  std::optional<std::uint64_t> column;       ///< JSON files: 1-based, UTF-16 code units
  std::optional<std::uint64_t> byte_offset;  ///< weight files: offset in the file
  std::optional<std::uint64_t> byte_length;
  std::optional<std::string> tensor;         ///< the tensor involved, when there is one
};

struct Finding {
  const RuleInfo* rule = nullptr;
  Location location;
  std::string message;  ///< a complete sentence naming the tensor, field or hash involved

  [[nodiscard]] Severity severity() const { return rule->severity; }
};

/// Collects findings in the order they are found.
class FindingSink {
 public:
  void Report(const RuleInfo& rule, Location location, std::string message) {
    findings_.push_back(Finding{&rule, std::move(location), std::move(message)});
  }
  [[nodiscard]] const std::vector<Finding>& findings() const { return findings_; }
  [[nodiscard]] std::vector<Finding>& findings() { return findings_; }
  [[nodiscard]] bool Has(std::string_view rule_id) const {
    for (const Finding& f : findings_) {
      if (f.rule->id == rule_id) return true;
    }
    return false;
  }

 private:
  std::vector<Finding> findings_;
};

}  // namespace ckpt
